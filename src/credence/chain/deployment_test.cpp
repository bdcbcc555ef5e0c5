// The deployment file (chain/deployment.hpp): parse, serialize, save/load, and where it lives.
#include <credence/chain/deployment.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using credence::chain::Deployment;

// As contracts/script/Deploy.s.sol writes it (two contracts of the real file).
constexpr std::string_view kForgeFile =
    R"({"chainId":31337,"create2Deployer":"0x4e59b44847b379578588920cA78FbF26c0B4956C",)"
    R"("salt":"0x71cc09e19f83201ff57967041d4c2f32d1af3360fb295102c794c059e3a6cdbd",)"
    R"("deployer":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","contracts":{)"
    R"("IdentityRegistry":{"address":"0xc549387252755d6f11385F3ddf3Eb23B6635D5e5",)"
    R"("abi":"contracts/out/IdentityRegistry.sol/IdentityRegistry.json"},)"
    R"("ReputationRegistry":{"address":"0x0ABEAD2753fe251CCfb22E11a0D853095954b529",)"
    R"("abi":"contracts/out/ReputationRegistry.sol/ReputationRegistry.json"}}})";

// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value != nullptr) {
            ::setenv(name, value, 1);
        } else {
            ::unsetenv(name);
        }
    }
    ~ScopedEnv() {
        if (old_) {
            ::setenv(name_, old_->c_str(), 1);
        } else {
            ::unsetenv(name_);
        }
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

}  // namespace

TEST(chain_deployment, parses_the_file_deploy_script_writes) {
    auto d = credence::chain::parse_deployment(kForgeFile);
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->chain_id, 31337U);
    EXPECT_FALSE(d->rpc_url.has_value());
    EXPECT_EQ(d->create2_deployer.to_checksum_hex(), "0x4e59b44847b379578588920cA78FbF26c0B4956C");
    EXPECT_EQ(d->deployer.to_checksum_hex(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    EXPECT_EQ(credence::core::to_hex(d->salt),
              "0x71cc09e19f83201ff57967041d4c2f32d1af3360fb295102c794c059e3a6cdbd");
    ASSERT_EQ(d->contracts.size(), 2U);
    EXPECT_EQ(d->contracts.at("ReputationRegistry").to_checksum_hex(),
              "0x0ABEAD2753fe251CCfb22E11a0D853095954b529");
}

TEST(chain_deployment, serialize_round_trips_with_rpc_url) {
    auto d = credence::chain::parse_deployment(kForgeFile);
    ASSERT_TRUE(d);
    d->rpc_url = "http://127.0.0.1:8545";
    const std::string text = credence::chain::serialize_deployment(*d);
    EXPECT_TRUE(text.ends_with("\n"));
    // EIP-55 addresses in the output.
    EXPECT_NE(text.find("0xc549387252755d6f11385F3ddf3Eb23B6635D5e5"), std::string::npos);
    auto again = credence::chain::parse_deployment(text);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(again->rpc_url, d->rpc_url);
    EXPECT_EQ(again->contracts, d->contracts);
    EXPECT_EQ(again->salt, d->salt);
    EXPECT_EQ(credence::chain::serialize_deployment(*again), text);  // stable
}

// An earlier-revision registry keeps its revision through a save and a load; the current ones
// carry none (docs/compatibility.md §Earlier ERC-8004 revisions).
TEST(chain_deployment, legacy_registries_record_their_revision) {
    using credence::core::Erc8004Revision;
    auto d = credence::chain::parse_deployment(kForgeFile);
    ASSERT_TRUE(d);
    const auto draft = d->contracts.at("IdentityRegistry");
    d->contracts.emplace("DraftIdentityRegistry", draft);
    d->revisions.emplace("DraftIdentityRegistry", Erc8004Revision::draft);
    d->contracts.emplace("ScoreReputationRegistry", d->contracts.at("ReputationRegistry"));
    d->revisions.emplace("ScoreReputationRegistry", Erc8004Revision::score);
    const std::string text = credence::chain::serialize_deployment(*d);
    EXPECT_NE(text.find("\"revision\": \"draft\""), std::string::npos) << text;
    auto again = credence::chain::parse_deployment(text);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(again->revisions, d->revisions);
    EXPECT_EQ(again->revision_of("ScoreReputationRegistry"), Erc8004Revision::score);
    EXPECT_EQ(again->revision_of("IdentityRegistry"), Erc8004Revision::current);
    EXPECT_EQ(credence::chain::legacy_registry_revision("DraftValidationRegistry"),
              Erc8004Revision::draft);
    EXPECT_EQ(credence::chain::legacy_registry_revision("ScoreIdentityRegistry"),
              Erc8004Revision::score);
    EXPECT_EQ(credence::chain::legacy_registry_revision("IdentityRegistry"), std::nullopt);

    std::string bad = text;
    bad.replace(bad.find("\"draft\""), 7, "\"first\"");
    auto refused = credence::chain::parse_deployment(bad);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("contracts.DraftIdentityRegistry.revision"), std::string::npos)
        << refused.error();
}

TEST(chain_deployment, errors_name_the_bad_field) {
    auto not_json = credence::chain::parse_deployment("{");
    ASSERT_FALSE(not_json);
    EXPECT_NE(not_json.error().find("JSON"), std::string::npos);

    std::string bad_checksum(kForgeFile);
    // EIP-55: flip the case of one letter of a mixed-case address.
    bad_checksum.replace(bad_checksum.find("0xc549387252755d6f11385F3"), 25,
                         "0xc549387252755d6f11385f3");
    auto e1 = credence::chain::parse_deployment(bad_checksum);
    ASSERT_FALSE(e1);
    EXPECT_NE(e1.error().find("contracts.IdentityRegistry.address"), std::string::npos)
        << e1.error();

    auto e2 = credence::chain::parse_deployment(
        R"({"chainId":"1","create2Deployer":"0x4e59b44847b379578588920cA78FbF26c0B4956C"})");
    ASSERT_FALSE(e2);
    EXPECT_NE(e2.error().find("chainId"), std::string::npos);

    std::string short_salt(kForgeFile);
    short_salt.replace(short_salt.find("0x71cc"), 6, "0x71c");
    auto e3 = credence::chain::parse_deployment(short_salt);
    ASSERT_FALSE(e3);
    EXPECT_NE(e3.error().find("salt"), std::string::npos);
}

TEST(chain_deployment, save_creates_directories_and_load_reads_back) {
    const fs::path dir =
        fs::temp_directory_path() / ("credence-deployment-test-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const fs::path path = dir / "deployments" / "31337.json";
    auto d = credence::chain::parse_deployment(kForgeFile);
    ASSERT_TRUE(d);
    ASSERT_TRUE(credence::chain::save_deployment(path, *d));
    auto loaded = credence::chain::load_deployment(path);
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(loaded->contracts, d->contracts);
    // No temporary file is left beside it.
    size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(path.parent_path())) ++files;
    EXPECT_EQ(files, 1U);

    auto missing = credence::chain::load_deployment(dir / "nope.json");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("nope.json"), std::string::npos);
    fs::remove_all(dir);
}

TEST(chain_deployment, paths_follow_credence_home_then_home) {
    {
        ScopedEnv home("CREDENCE_HOME", "/tmp/ch");
        EXPECT_EQ(credence::chain::credence_home(), fs::path("/tmp/ch"));
        EXPECT_EQ(credence::chain::deployment_path(8453),
                  fs::path("/tmp/ch/deployments/8453.json"));
        EXPECT_EQ(credence::chain::devnet_path(), fs::path("/tmp/ch/devnet.json"));
    }
    ScopedEnv unset("CREDENCE_HOME", nullptr);
    ScopedEnv user("HOME", "/home/u");
    EXPECT_EQ(credence::chain::credence_home(), fs::path("/home/u/.credence"));
}

// One lookup order for every command and the node (docs/cli.md, `--deployment`).
TEST(chain_deployment, find_follows_explicit_then_env_then_home_then_checkout) {
    const fs::path dir = fs::temp_directory_path() / "credence-find-deployment-test";
    fs::remove_all(dir);
    fs::create_directories(dir / "home/deployments");
    fs::create_directories(dir / "cwd/contracts/deployments");
    const auto write = [](const fs::path& path, std::string_view deployer) {
        std::string text(kForgeFile);
        text.replace(text.find("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"), 42, deployer);
        std::ofstream(path) << text;
    };
    constexpr std::string_view kExplicit = "0x1111111111111111111111111111111111111111";
    constexpr std::string_view kEnv = "0x2222222222222222222222222222222222222222";
    constexpr std::string_view kHome = "0x3333333333333333333333333333333333333333";
    constexpr std::string_view kCheckout = "0x4444444444444444444444444444444444444444";
    write(dir / "explicit.json", kExplicit);
    write(dir / "env.json", kEnv);
    const auto cwd = fs::current_path();
    fs::current_path(dir / "cwd");
    ScopedEnv home("CREDENCE_HOME", (dir / "home").c_str());
    ScopedEnv env("CREDENCE_DEPLOYMENT", nullptr);
    const auto deployer_of = [](const fs::path& explicit_path) -> std::string {
        auto found = credence::chain::find_deployment(31337, explicit_path);
        if (!found) return "error: " + found.error();
        return *found ? (*found)->deployer.to_lower_hex() : "none";
    };

    EXPECT_EQ(deployer_of({}), "none");
    write(dir / "cwd/contracts/deployments/31337.json", kCheckout);
    EXPECT_EQ(deployer_of({}), kCheckout);
    write(credence::chain::deployment_path(31337), kHome);
    EXPECT_EQ(deployer_of({}), kHome);
    {
        ScopedEnv set("CREDENCE_DEPLOYMENT", (dir / "env.json").c_str());
        EXPECT_EQ(deployer_of({}), kEnv);
        EXPECT_EQ(deployer_of(dir / "explicit.json"), kExplicit);
    }
    const std::string missing = deployer_of(dir / "missing.json");
    EXPECT_TRUE(missing.starts_with("error: ") && missing.find("missing.json") != std::string::npos)
        << missing;
    std::ofstream(dir / "bad.json") << "{";
    EXPECT_TRUE(deployer_of(dir / "bad.json").starts_with("error: "));

    fs::current_path(cwd);
    fs::remove_all(dir);
}
