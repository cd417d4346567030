// `rica record [-o DIR] -- COMMAND...` (docs/replay.md): runs an MPI program with rica's PMPI
// interposition library (librica_record.so, apps/record) preloaded into every rank, which writes an
// OTF2 archive DIR/traces.otf2 (+ DIR/traces/, DIR/traces.def). The program's output and exit
// status pass through; a program stopped by a signal leaves no archive behind.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "options.hpp"
#include "rica/core.hpp"

namespace rica::cli {
namespace {

namespace fs = std::filesystem;

/// librica_record.so: $RICA_RECORD_LIB, else beside the rica binary (the build tree), else
/// ../lib/rica/ from it (an install).
std::string record_library() {
  if (const char* e = std::getenv("RICA_RECORD_LIB"); e && *e) {
    if (!fs::exists(e)) throw usage_error(fmt::format("RICA_RECORD_LIB={}: no such file", quote_input(e)));
    return fs::absolute(e).string();
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& p : {self.parent_path() / "librica_record.so",
                              self.parent_path().parent_path() / "lib" / "rica" / "librica_record.so",
                              self.parent_path().parent_path() / "lib64" / "rica" / "librica_record.so",
                              self.parent_path().parent_path() / "lib" / "x86_64-linux-gnu" / "rica" / "librica_record.so"})
      if (fs::exists(p, ec)) return p.string();
  }
  throw usage_error("rica record: librica_record.so not found beside rica or in its lib/rica/ (this rica was built "
                    "without MPI?); set RICA_RECORD_LIB to it");
}

void remove_archive(const fs::path& dir) {
  std::error_code ec;
  fs::remove(dir / "traces.otf2", ec);
  fs::remove(dir / "traces.def", ec);
  fs::remove_all(dir / "traces", ec);
}

int record(const std::string& out, const std::vector<std::string>& command) {
  if (command.empty()) throw usage_error("rica record: no COMMAND; give it after '--' (rica record -o DIR -- mpirun ...)");
  const std::string lib = record_library();
  const fs::path dir = fs::absolute(out);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw usage_error(fmt::format("-o {}: cannot create the directory ({})", quote_input(out), ec.message()));
  if (fs::exists(dir / "traces.otf2") || fs::exists(dir / "traces"))
    throw usage_error(fmt::format("-o {}: already holds an archive (traces.otf2); remove it or give another directory",
                                  quote_input(out)));
  if (::access(dir.c_str(), W_OK) != 0)
    throw usage_error(fmt::format("-o {}: the directory is not writable", quote_input(out)));
  std::string preload = lib;
  if (const char* p = std::getenv("LD_PRELOAD"); p && *p) preload += std::string(":") + p;
  const pid_t child = ::fork();
  if (child < 0) throw usage_error("rica record: fork failed");
  if (child == 0) {
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    ::setenv("RICA_RECORD_DIR", dir.c_str(), 1);
    // Open MPI's launcher forwards only some variables to remote ranks; name ours for it.
    ::setenv("OMPI_MCA_mca_base_env_list", "LD_PRELOAD;RICA_RECORD_DIR", 0);
    std::vector<char*> argv;
    for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "rica record: %s: cannot run it (%s)\n", command[0].c_str(), std::strerror(errno));
    std::_Exit(127);
  }
  // Ctrl-C reaches the program (same process group); rica waits for it.
  struct sigaction ignore {}, old_int{}, old_term{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGTERM, &ignore, &old_term);
  int st = 0;
  while (::waitpid(child, &st, 0) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  if (WIFSIGNALED(st)) {
    remove_archive(dir);
    std::fprintf(stderr, "rica record: the program was stopped by signal %d; no archive kept\n", WTERMSIG(st));
    return 128 + WTERMSIG(st);
  }
  const int code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
  if (code == 127 && !fs::exists(dir / "traces.otf2")) return code;  // not run (said above)
  if (!fs::exists(dir / "traces.otf2"))
    std::fprintf(stderr, "rica record: the program wrote no archive (not an MPI program, or it did not reach "
                         "MPI_Finalize?)\n");
  else if (code != 0)
    std::fprintf(stderr, "rica record: the program exited with status %d; the archive %s may be incomplete\n", code,
                 (dir / "traces.otf2").c_str());
  else
    std::fprintf(stderr, "rica record: wrote %s (replay it: rica replay %s TOPOLOGY)\n", (dir / "traces.otf2").c_str(),
                 (dir / "traces.otf2").c_str());
  return code;
}

}  // namespace

void add_record_command(CLI::App& app, int& status) {
  auto out = std::make_shared<std::string>("rica-trace");
  auto command = std::make_shared<std::vector<std::string>>();
  auto* c = app.add_subcommand("record",
                               "Run an MPI program with rica's PMPI recorder preloaded into every rank; writes an OTF2 "
                               "archive to replay with 'rica replay'");
  c->add_option("-o,--out", *out, "Directory of the archive (DIR/traces.otf2); created if missing")
      ->type_name("DIR")
      ->capture_default_str();
  c->add_option("command", *command, "The program and its arguments, after '--' (e.g. -- mpirun -np 4 ./stencil)")
      ->required();
  c->callback([out, command, &status] { status = record(*out, *command); });
}

}  // namespace rica::cli
