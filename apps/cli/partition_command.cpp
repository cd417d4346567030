// `rica partition`: cut a topology into K partitions by its rule and verify which are closed. A
// thin presenter over the library request rica/request/partition.hpp: options ->
// request::Partition; run; text or JSON (the same for Python).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/request/partition.hpp"

namespace rica::cli {
namespace {

struct PartitionOptions {
  CLI::App* cmd = nullptr;
  request::Partition request;
  std::string json;
  bool quiet = false;
};

void declare(CLI::App* cmd, PartitionOptions& o) {
  o.cmd = cmd;
  request::Partition& r = o.request;
  add_text(cmd, "spec", r.topology, "Topology spec (see 'rica list')", "a topology spec (see 'rica list')")->required();
  add_uint(cmd, "--parts,-k", r.parts, 1, defaults::limits::parts, "K, the number of partitions");
  cmd->add_option("--dims", r.dims,
                  "Dimensions of the shape to cut: D or D:B (B high bits = 2^B pieces), comma separated, e.g. 2:1,1:1");
  cmd->add_option("--cut", r.cuts, "Explicit cut points of a grid dimension: D=c1[,c2...] (repeatable), e.g. 0=5");
  cmd->add_option("--pairs", r.pairs,
                  "Pairs to route: auto (symmetry where exact, else all pairs up to a limit, else sample), all, sample")
      ->capture_default_str();
  add_uint(cmd, "--samples", r.samples, 1, request::Partition::max_samples, "Destinations per partition when sampling");
  add_seed(cmd, r.seed, "Seed of the destination sample");
  add_json(cmd, o.json, "Write JSON to FILE: every partition's PEs, closed flag, offending hops");
  add_quiet(cmd, o.quiet);
  add_threads(cmd, r.threads);
  cmd->add_flag("--routers", r.routers, "With --json: also every partition's nodes and links (link = node*ports+port)");
}

/// What `--json` writes: provenance (the options as configuration) and the plan.
nlohmann::json report(const PartitionOptions& o, const request::PartitionOutcome& r) {
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = r.threads;
  nlohmann::json j = provenance(config, o.request.seed, r.threads);
  j.update(r.to_json());
  return j;
}

}  // namespace

nlohmann::json partition_json(const std::vector<std::string>& args) {
  PartitionOptions o;
  std::optional<nlohmann::json> out;
  parse_subcommand("partition", args, [&](CLI::App* c) { declare(c, o); }, [&] {
    if (!o.json.empty() || o.quiet)
      throw usage_error("partition: --json and --quiet are the CLI's; the result is returned");
    out.emplace(report(o, request::run(o.request)));
  });
  return std::move(*out);
}

void add_partition_command(CLI::App& app) {
  auto o = std::make_shared<PartitionOptions>();
  auto* cmd = app.add_subcommand(
      "partition", "Cut a topology into K partitions by its rule and verify which are closed (docs/partitions.md)");
  declare(cmd, *o);
  cmd->callback([o] {
    const request::PartitionOutcome r = request::run(o->request);
    if (!o->json.empty()) write_json(o->json, report(*o, r));
    if (show_text(o->quiet, o->json)) fmt::print("{}", r.text());
  });
}

}  // namespace rica::cli
