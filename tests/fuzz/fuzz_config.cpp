// Fuzz target: configuration files (`--config FILE`, JSON, or TOML when the name ends in .toml):
// the first byte chooses the format and the subcommand, the rest is the file. The file goes through
// apply_config and CLI11's parse of the resulting command line with every option's check; the
// commands themselves do not run (their callbacks are removed).
#include <array>

#include "commands.hpp"
#include "config_file.hpp"
#include "fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static const std::array<const char*, 8> commands = {"run", "sweep", "os", "os-stream", "topo", "partition",
                                                      "experiment", "embed"};
  const bool toml = data[0] & 1;
  const std::string path = rica::fuzz::scratch_file(rica::fuzz::text_of(data + 1, size - 1), toml ? ".toml" : ".json");
  CLI::App app{"rica"};
  app.require_subcommand(1);
  int status = 0;
  rica::cli::add_all_commands(app, status);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->callback(std::function<void()>{});
    for (CLI::App* inner : sub->get_subcommands([](CLI::App*) { return true; })) inner->callback(std::function<void()>{});
  }
  std::vector<std::string> args = {commands[(data[0] >> 1) % commands.size()], "--config", path};
  if (args[0] == std::string("embed")) args.insert(args.begin() + 1, "ring");
  rica::fuzz::refused_or_ok([&] {
    try {
      args = rica::cli::apply_config(app, args);
      std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
      app.parse(args);
    } catch (const CLI::Error&) {  // CLI11's refusal of the command line (the CLI's exit 2)
    }
  });
  return 0;
}
