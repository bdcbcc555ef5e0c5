// Prometheus text exposition (format 0.0.4) of the indexer's counters (docs/cli.md §index).
#include <fmt/core.h>

#include <credence/index/indexer.hpp>

namespace credence::index {

std::string IndexerMetrics::to_prometheus(uint64_t chain_id) const {
    std::string out;
    const auto metric = [&](std::string_view name, std::string_view type, std::string_view help,
                            auto value) {
        out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{}{{chain_id=\"{}\"}} {}\n", name, help,
                           name, type, name, chain_id, value);
    };
    const uint64_t head = head_block.load();
    const uint64_t cursor = cursor_block.load();
    metric("credence_index_head_block", "gauge", "Latest block number reported by the node.", head);
    metric("credence_index_cursor_block", "gauge", "Last block fully indexed.", cursor);
    metric("credence_index_head_lag_blocks", "gauge", "Blocks between the head and the cursor.",
           head > cursor ? head - cursor : 0);
    metric("credence_index_events_total", "counter", "Registry logs stored and projected.",
           events_total.load());
    metric("credence_index_events_per_second", "gauge",
           "Throughput of the last batch (rate(credence_index_events_total) over time).",
           events_per_second.load());
    metric("credence_index_rejected_total", "counter", "Logs skipped as bad data.",
           rejected_total.load());
    metric("credence_index_rpc_errors_total", "counter", "Failed JSON-RPC exchanges.",
           rpc_errors_total.load());
    metric("credence_index_reorgs_total", "counter", "Chain reorganisations rolled back.",
           reorgs_total.load());
    // Batch latency as a Prometheus summary without quantiles: rate(_sum) / rate(_count).
    out += fmt::format(
        "# HELP credence_index_batch_seconds Time to fetch and commit one batch.\n"
        "# TYPE credence_index_batch_seconds summary\n"
        "credence_index_batch_seconds_sum{{chain_id=\"{}\"}} {:.6f}\n"
        "credence_index_batch_seconds_count{{chain_id=\"{}\"}} {}\n",
        chain_id, static_cast<double>(batch_seconds_micros.load()) / 1e6, chain_id,
        batches_total.load());
    return out;
}

}  // namespace credence::index
