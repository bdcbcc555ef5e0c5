// Prometheus text exposition (format 0.0.4) of the indexer's counters (docs/cli.md §index).
#include <span>
#include <utility>

#include <fmt/core.h>

#include <credence/index/indexer.hpp>

namespace credence::index {

std::string IndexerMetrics::to_prometheus(uint64_t chain_id) const {
    const std::pair<uint64_t, const IndexerMetrics*> one{chain_id, this};
    return index::to_prometheus(std::span(&one, 1));
}

std::string to_prometheus(std::span<const std::pair<uint64_t, const IndexerMetrics*>> chains) {
    // Each family's HELP and TYPE once, then one sample per chain: a repeated HELP line is an
    // error to Prometheus' parser.
    std::string out;
    const auto family = [&](std::string_view name, std::string_view type, std::string_view help,
                            auto value_of) {
        out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
        for (const auto& [chain_id, m] : chains) {
            out += fmt::format("{}{{chain_id=\"{}\"}} {}\n", name, chain_id, value_of(*m));
        }
    };
    const auto lag = [](const IndexerMetrics& m) {
        const uint64_t head = m.head_block.load();
        const uint64_t cursor = m.cursor_block.load();
        return head > cursor ? head - cursor : 0;
    };
    family("credence_index_head_block", "gauge", "Latest block number reported by the node.",
           [](const IndexerMetrics& m) { return m.head_block.load(); });
    family("credence_index_cursor_block", "gauge", "Last block fully indexed.",
           [](const IndexerMetrics& m) { return m.cursor_block.load(); });
    family("credence_index_head_lag_blocks", "gauge", "Blocks between the head and the cursor.",
           lag);
    family("credence_index_events_total", "counter", "Registry logs stored and projected.",
           [](const IndexerMetrics& m) { return m.events_total.load(); });
    family("credence_index_events_per_second", "gauge",
           "Throughput of the last batch (rate(credence_index_events_total) over time).",
           [](const IndexerMetrics& m) { return m.events_per_second.load(); });
    family("credence_index_rejected_total", "counter", "Logs skipped as bad data.",
           [](const IndexerMetrics& m) { return m.rejected_total.load(); });
    family("credence_index_rpc_errors_total", "counter", "Failed JSON-RPC exchanges.",
           [](const IndexerMetrics& m) { return m.rpc_errors_total.load(); });
    family("credence_index_reorgs_total", "counter", "Chain reorganisations rolled back.",
           [](const IndexerMetrics& m) { return m.reorgs_total.load(); });
    // Batch latency as a Prometheus summary without quantiles: rate(_sum) / rate(_count).
    out +=
        "# HELP credence_index_batch_seconds Time to fetch and commit one batch.\n"
        "# TYPE credence_index_batch_seconds summary\n";
    for (const auto& [chain_id, m] : chains) {
        out += fmt::format(
            "credence_index_batch_seconds_sum{{chain_id=\"{0}\"}} {1:.6f}\n"
            "credence_index_batch_seconds_count{{chain_id=\"{0}\"}} {2}\n",
            chain_id, static_cast<double>(m->batch_seconds_micros.load()) / 1e6,
            m->batches_total.load());
    }
    return out;
}

}  // namespace credence::index
