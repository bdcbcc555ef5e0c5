// RestApi's failure answers (docs/api.md §Errors, docs/node.md §Health and §Integrity), driven
// in-process over real SQLite files: a database error is 503 with a generic message (its text,
// which quotes SQL, goes to the log only); /healthz is degraded with the configured status while
// the node says so; and once a query finds the index damaged, every data route and /healthz
// answer 503 index_corrupt instead of partial or empty lists.
#include <credence/api/rest_api.hpp>

#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/index/store.hpp>
#include <support/scratch.hpp>

namespace credence::api {
namespace {

using Json = nlohmann::json;

HttpRequest health_request(std::string path) {
    HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.remote_ip = "127.0.0.1";
    return r;
}

std::filesystem::path fresh(const std::string& name) {
    static std::atomic<int> counter{0};
    auto path = testing::scratch_dir() / (name + std::to_string(counter++) + ".sqlite");
    std::filesystem::remove(path);
    return path;
}

struct Log {
    std::mutex mutex;
    std::vector<std::string> lines;
    std::function<void(std::string_view)> sink() {
        return [this](std::string_view line) {
            const std::lock_guard lock(mutex);
            lines.emplace_back(line);
        };
    }
    std::string all() {
        const std::lock_guard lock(mutex);
        std::string out;
        for (const auto& l : lines) out += l + "\n";
        return out;
    }
};

// docs/api.md §Errors: the 503 for a database error says only that; the SQL is in the log.
TEST(rest_health, a_database_error_is_a_generic_503_with_details_in_the_log) {
    const auto path = fresh("rest_no_schema");  // no migrations: every data query fails
    Log log;
    RestApiOptions options;
    options.open_database = [path] { return index::open_sqlite(path); };
    options.log = log.sink();
    RestApi api(std::move(options));
    for (const std::string route :
         {"/api/v1/agents", "/api/v1/agents/3/feedback", "/api/v1/tools", "/api/v1/runs"}) {
        const HttpResponse r = api.handle(health_request(route));
        EXPECT_EQ(r.status, 503) << route;
        const Json body = Json::parse(r.body);
        EXPECT_EQ(body["code"], "unavailable");
        EXPECT_EQ(body["error"], "database unavailable") << r.body;
        for (const char* leak : {"SELECT", "FROM", "no such table", "sql"}) {
            EXPECT_EQ(r.body.find(leak), std::string::npos) << route << ": " << r.body;
        }
    }
    EXPECT_NE(log.all().find("no such table"), std::string::npos) << log.all();
}

// docs/node.md §Health: degraded answers `degraded_status` with the reasons; ok stays 200.
TEST(rest_health, healthz_is_degraded_while_the_node_says_so) {
    const auto path = fresh("rest_health");
    RestApiOptions options;
    options.open_database = [path] { return index::open_sqlite(path); };
    std::atomic<bool> degraded{false};
    options.node_health = [&degraded] {
        NodeHealth h;
        if (degraded.load()) {
            h.degraded = true;
            h.reasons.emplace_back("chain RPC unreachable");
        }
        return h;
    };
    RestApi api(options);
    HttpResponse r = api.handle(health_request("/healthz"));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(Json::parse(r.body)["status"], "ok");
    degraded = true;
    r = api.handle(health_request("/healthz"));
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(Json::parse(r.body)["status"], "degraded");
    EXPECT_EQ(Json::parse(r.body)["reasons"], Json::array({"chain RPC unreachable"}));
    options.degraded_status = 200;
    RestApi lenient(options);
    r = lenient.handle(health_request("/healthz"));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(Json::parse(r.body)["status"], "degraded");
}

/// Overwrites the first 16 bytes of every page but the first with 0xA5 (a disk that lost
/// sectors): each B-tree page's header is gone, which SQLite notices when it reads the page.
void damage_pages(const std::filesystem::path& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f);
    std::array<unsigned char, 2> raw{};
    f.seekg(16);  // SQLite file header: the page size, big-endian (1 means 65536)
    f.read(reinterpret_cast<char*>(raw.data()), 2);
    const unsigned stored = (unsigned{raw[0]} << 8) | raw[1];
    const std::streamoff page = stored == 1 ? 65536 : stored;
    ASSERT_GE(page, 512);
    const auto size = static_cast<std::streamoff>(std::filesystem::file_size(path));
    const std::string junk(16, static_cast<char>(0xA5));
    for (std::streamoff at = page; at < size; at += page) {
        f.seekp(at);
        f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    ASSERT_TRUE(f);
}

// docs/node.md §Integrity: a query that finds the file damaged makes the whole API answer 503
// index_corrupt, /healthz included, from then on: a damaged index never answers as if it were
// whole (a lookup through a damaged index page may find nothing rather than fail).
TEST(rest_health, a_damaged_index_is_503_index_corrupt_everywhere_after_the_first_hit) {
    const auto path = fresh("rest_corrupt");
    {
        auto db = index::open_sqlite(path);
        ASSERT_TRUE(db) << db.error().to_string();
        auto store = index::IndexStore::open(**db);
        ASSERT_TRUE(store) << store.error().to_string();
        ASSERT_TRUE((*db)->exec_script("PRAGMA wal_checkpoint(TRUNCATE)"));
    }
    damage_pages(path);
    Log log;
    RestApiOptions options;
    options.open_database = [path] { return index::open_sqlite(path); };
    options.log = log.sink();
    RestApi api(std::move(options));
    for (const std::string route :
         {"/api/v1/agents", "/healthz", "/api/v1/agents/3/feedback", "/api/v1/tools"}) {
        const HttpResponse r = api.handle(health_request(route));
        EXPECT_EQ(r.status, 503) << route << ": " << r.body;
        EXPECT_EQ(Json::parse(r.body)["code"], "index_corrupt") << route << ": " << r.body;
        EXPECT_EQ(r.body.find("SELECT"), std::string::npos) << r.body;
    }
    EXPECT_NE(log.all().find("damaged"), std::string::npos) << log.all();
}

}  // namespace
}  // namespace credence::api
