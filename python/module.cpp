// rica._rica: the pybind11 layer of the Python module (python/rica/__init__.py is the API).
//
// Every function takes a subcommand's arguments as the CLI would get them (the Python layer turns
// keyword arguments into "--option value" pairs) and goes through the CLI's own parsers
// (apps/cli/api.hpp), so Python accepts and refuses exactly what `rica` does. Contracts:
//   - bad input raises rica.RicaError (a ValueError) whose text is the CLI's one-line message;
//     out of memory raises MemoryError; nothing else escapes as anything but RuntimeError;
//   - the GIL is released while topologies are analysed and machines run (no Python object is
//     touched then), so other Python threads go on;
//   - tables are NumPy arrays built from the runtime's result structs (RunStats, SweepPoint);
//   - Ctrl-C: while a call runs in the main thread, SIGINT asks the runs to stop
//     (rica/interrupt.hpp: the cycle engine stops within a cycle) and the call raises
//     KeyboardInterrupt, having written nothing; Python's own handler is back when it returns.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api.hpp"
#include "app_registry.hpp"
#include "options.hpp"
#include "rica/core.hpp"
#include "rica/interrupt.hpp"
#include "rica/version.hpp"
#include "rica/os.hpp"
#include "rica/registry.hpp"
#include "traffic.hpp"

namespace py = pybind11;
using rica::node_t;
using rica::port_t;

namespace {

/// nlohmann::json -> the equivalent Python object (dict, list, int, float, str, bool, None).
py::object to_python(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) d[py::str(it.key())] = to_python(it.value());
      return d;
    }
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& v : j) l.append(to_python(v));
      return l;
    }
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    default: return py::none();
  }
}

template <class T>
py::array_t<T> array_of(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

/// The per-PE table (every node: switches of indirect networks have forwarded/blocked only) and
/// the per-link table, as the CLI's --csv writes them.
py::dict tables(const rica::Topology& t, const rica::RunStats& st) {
  const node_t n = t.nodes(), pes = t.pes();
  std::vector<std::uint32_t> node(n);
  std::vector<std::uint64_t> inj(n), del(n), fwd(n), blk(n);
  py::list labels;
  for (node_t v = 0; v < n; ++v) {
    node[v] = v;
    inj[v] = v < pes ? st.pe_injected[v] : 0;
    del[v] = v < pes ? st.pe_delivered[v] : 0;
    fwd[v] = st.pe_forwarded[v];
    blk[v] = st.pe_blocked[v];
    labels.append(t.label(v));
  }
  py::dict pe;
  pe["pe"] = array_of(node);
  pe["label"] = labels;
  pe["injected"] = array_of(inj);
  pe["delivered"] = array_of(del);
  pe["forwarded"] = array_of(fwd);
  pe["blocked"] = array_of(blk);
  std::vector<std::uint32_t> lnode, lport, lpeer;
  std::vector<std::uint64_t> lpk;
  for (node_t v = 0; v < n; ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const rica::Link l = t.out_link(v, p);
      if (!l.present()) continue;
      lnode.push_back(v);
      lport.push_back(p);
      lpeer.push_back(l.peer);
      lpk.push_back(st.link_packets[std::size_t{v} * t.ports() + p]);
    }
  py::dict link;
  link["node"] = array_of(lnode);
  link["port"] = array_of(lport);
  link["peer"] = array_of(lpeer);
  link["packets"] = array_of(lpk);
  py::dict out;
  out["pe"] = pe;
  out["link"] = link;
  out["hop_histogram"] = array_of(st.hop_histogram);
  return out;
}

/// The trace file the machine wrote (rica::trace_columns) as columns.
py::dict read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw rica::usage_error("--trace: cannot read '" + path + "'");
  std::string line;
  std::getline(in, line);
  if (line != rica::trace_header())
    throw std::runtime_error("trace '" + path + "': unexpected header '" + line + "'");
  std::vector<std::uint64_t> col[rica::trace_columns.size()];
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string f;
    for (auto& c : col) {
      if (!std::getline(fields, f, ',')) throw std::runtime_error("trace '" + path + "': short row '" + line + "'");
      c.push_back(std::stoull(f));
    }
  }
  py::dict d;
  for (std::size_t i = 0; i < rica::trace_columns.size(); ++i) d[py::str(rica::trace_columns[i].data(), rica::trace_columns[i].size())] = array_of(col[i]);
  return d;
}

/// The telemetry tables (rica/telemetry.hpp) as {table: {column: NumPy array}}.
py::dict telemetry_tables(const rica::Telemetry& tel) {
  py::dict d;
  for (const auto& [name, table] : tel.tables()) {
    py::dict cols;
    for (const auto& c : table->columns)
      cols[py::str(c.name)] = c.real ? py::object(array_of(c.reals)) : py::object(array_of(c.ints));
    d[py::str(name)] = cols;
  }
  return d;
}

/// While it lives (a call from the main thread): SIGINT requests a stop (rica::request_interrupt)
/// instead of Python's handler, which cannot run while the GIL is released. Constructed and
/// destroyed with the GIL held.
class SigintGuard {
 public:
  SigintGuard() {
    rica::clear_interrupt();
    const py::module_ threading = py::module_::import("threading");
    if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
    struct sigaction sa {};
    sa.sa_handler = [](int) { rica::request_interrupt(); };
    sigemptyset(&sa.sa_mask);
    installed_ = sigaction(SIGINT, &sa, &old_) == 0;
  }
  ~SigintGuard() {
    if (installed_) sigaction(SIGINT, &old_, nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  struct sigaction old_ {};
  bool installed_ = false;
};

/// f() with the GIL released and Ctrl-C turned into a stop request; KeyboardInterrupt when one
/// came (the run stopped, rica::interrupted, or finished first: the async engine, analyses).
template <class F>
auto interruptible(F&& f) {
  SigintGuard guard;
  auto raise_interrupt = [] {
    rica::clear_interrupt();
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  };
  try {
    auto result = [&] {
      py::gil_scoped_release nogil;
      return f();
    }();
    if (rica::interrupt_requested()) raise_interrupt();
    return result;
  } catch (const rica::interrupted&) {
    raise_interrupt();
    throw;  // not reached
  }
}

py::dict run(const std::vector<std::string>& args) {
  rica::cli::RunOutcome out = interruptible([&] { return rica::cli::run_outcome(args); });
  py::dict r = tables(out.topology, out.stats);
  r["summary"] = to_python(out.json);
  r["status"] = out.status;
  if (!out.config.trace.empty()) r["trace"] = read_trace(out.config.trace);
  if (out.telemetry) r["telemetry"] = telemetry_tables(*out.telemetry);
  return r;
}

py::dict sweep(const std::vector<std::string>& args) {
  const std::vector<rica::experiments::SweepPoint> pts =
      interruptible([&] { return rica::cli::sweep_points(args); });
  py::list topo, traffic, routing;
  std::vector<double> rate, offered, accepted, lat_mean, lat_p50, lat_p99, hops;
  std::vector<std::uint64_t> delivered, cycles, cycles_run, seed;
  for (const auto& p : pts) {
    topo.append(p.topology);
    traffic.append(p.traffic);
    routing.append(p.routing);
    rate.push_back(p.rate);
    offered.push_back(p.offered);
    accepted.push_back(p.accepted);
    delivered.push_back(p.delivered);
    lat_mean.push_back(p.latency_mean);
    lat_p50.push_back(p.latency_p50);
    lat_p99.push_back(p.latency_p99);
    hops.push_back(p.hops_mean);
    cycles.push_back(p.cycles);
    cycles_run.push_back(p.cycles_run);
    seed.push_back(p.seed);
  }
  py::dict d;
  d["topology"] = topo;
  d["traffic"] = traffic;
  d["routing"] = routing;  // one series per (topology, routing): --routing a,b
  d["rate"] = array_of(rate);
  d["offered"] = array_of(offered);
  d["accepted"] = array_of(accepted);
  d["delivered"] = array_of(delivered);
  d["latency_mean"] = array_of(lat_mean);
  d["latency_p50"] = array_of(lat_p50);
  d["latency_p99"] = array_of(lat_p99);
  d["hops_mean"] = array_of(hops);
  d["cycles"] = array_of(cycles);
  d["cycles_run"] = array_of(cycles_run);
  d["seed"] = array_of(seed);
  // Per point (topology, rate) over its seeds, consecutive in the points: mean and 95% confidence
  // half-width (Student t), as `rica sweep` writes sweep_mean.csv (rica::cli::mean_ci95).
  py::list mtopo, mtraffic, mrouting;
  std::vector<double> mrate, moffered, mgen, macc, macc_ci, mlat, mlat_ci, mp99, mp99_ci, mhops;
  std::vector<std::uint64_t> mseeds;
  for (std::size_t i = 0; i < pts.size();) {
    std::size_t j = i;
    while (j < pts.size() && pts[j].topology == pts[i].topology && pts[j].routing == pts[i].routing &&
           pts[j].rate == pts[i].rate)
      ++j;  // never across routings: a routing is a series, not a seed
    auto stat = [&](auto field) {
      std::vector<double> v;
      for (std::size_t k = i; k < j; ++k) v.push_back(field(pts[k]));
      return rica::cli::mean_ci95(v);
    };
    const auto acc = stat([](const auto& p) { return p.accepted; });
    const auto lat = stat([](const auto& p) { return p.latency_mean; });
    const auto p99 = stat([](const auto& p) { return p.latency_p99; });
    mtopo.append(pts[i].topology);
    mtraffic.append(pts[i].traffic);
    mrouting.append(pts[i].routing);
    mrate.push_back(pts[i].rate);
    moffered.push_back(pts[i].offered);
    mseeds.push_back(j - i);
    mgen.push_back(stat([](const auto& p) { return p.generated; }).first);
    macc.push_back(acc.first);
    macc_ci.push_back(acc.second);
    mlat.push_back(lat.first);
    mlat_ci.push_back(lat.second);
    mp99.push_back(p99.first);
    mp99_ci.push_back(p99.second);
    mhops.push_back(stat([](const auto& p) { return p.hops_mean; }).first);
    i = j;
  }
  py::dict m;
  m["topology"] = mtopo;
  m["traffic"] = mtraffic;
  m["routing"] = mrouting;
  m["rate"] = array_of(mrate);
  m["offered"] = array_of(moffered);
  m["seeds"] = array_of(mseeds);
  m["generated_mean"] = array_of(mgen);
  m["accepted_mean"] = array_of(macc);
  m["accepted_ci95"] = array_of(macc_ci);
  m["latency_mean"] = array_of(mlat);
  m["latency_ci95"] = array_of(mlat_ci);
  m["latency_p99_mean"] = array_of(mp99);
  m["latency_p99_ci95"] = array_of(mp99_ci);
  m["hops_mean"] = array_of(mhops);
  d["means"] = m;
  return d;
}

py::dict describe(const std::string& spec) {
  const rica::Topology t = rica::TopologyRegistry::parse(spec);
  py::dict d;
  d["spec"] = t.spec();
  d["pes"] = t.pes();
  d["nodes"] = t.nodes();
  d["ports"] = t.ports();
  d["buffer_classes"] = t.buffer_classes();
  d["direct"] = t.direct();
  d["vertex_transitive"] = t.vertex_transitive();
  return d;
}

py::dict names() {
  py::list topo, traffic, apps, policies;
  for (const auto& e : rica::TopologyRegistry::available()) topo.append(e.name);
  for (const auto& e : rica::TrafficRegistry::available()) traffic.append(e.name);
  for (const auto& e : rica::AppRegistry::available()) apps.append(e.name);
  for (const auto& [name, doc] : rica::switch_policies()) policies.append(name);
  py::dict d;
  d["topologies"] = topo;
  d["traffic"] = traffic;
  d["apps"] = apps;
  d["policies"] = policies;
  return d;
}

}  // namespace

PYBIND11_MODULE(_rica, m) {
  m.doc() = "rica's native layer; use the rica package (python/rica/__init__.py)";
  py::register_exception<rica::usage_error>(m, "RicaError", PyExc_ValueError);
  m.attr("TELEMETRY_WINDOW") = rica::defaults::telemetry::window;
  m.attr("TELEMETRY_WINDOW_ASYNC_US") = rica::defaults::telemetry::async_window_us;
  m.attr("VERSION") = std::string(rica::version());
  m.def(
      "command",
      [](const std::vector<std::string>& args) {
        return interruptible([&] { return rica::cli::run_command(args); });
      },
      py::arg("args"),
      "rica ARGS in this process (the subcommand first): the CLI's parsers and checks; returns the exit "
      "status; refusals raise RicaError");
  m.def("run", &run, py::arg("args"), "rica run ARGS: figures and per-PE, per-link, per-packet tables");
  m.def("sweep", &sweep, py::arg("args"), "rica sweep ARGS (no --out): one row per (topology, rate)");
  m.def(
      "topo",
      [](const std::vector<std::string>& args) {
        return to_python(interruptible([&] { return rica::cli::topo_json(args); }));
      },
      py::arg("args"), "rica topo ARGS --json");
  m.def(
      "route", [](const std::vector<std::string>& args) { return to_python(rica::cli::route_json(args)); },
      py::arg("args"), "rica route ARGS --json");
  m.def(
      "os_stream",
      [](const std::vector<std::string>& args) {
        return to_python(interruptible([&] { return rica::cli::os_stream_json(args); }));
      },
      py::arg("args"), "rica os-stream ARGS --json: the runs' measures, per job");
  // The analysis commands as typed library requests (rica/request/): the CLI's parsers and checks.
  for (const auto& [name, fn] : {std::pair{"embed", &rica::cli::embed_json}, std::pair{"partition", &rica::cli::partition_json},
                                 std::pair{"bound", &rica::cli::bound_json}, std::pair{"experiment", &rica::cli::experiment_json}})
    m.def(
        name, [fn](const std::vector<std::string>& args) { return to_python(interruptible([&] { return fn(args); })); },
        py::arg("args"), (std::string("rica ") + name + " ARGS --json: the figures with configuration and provenance").c_str());
  m.def(
      "options", [](const std::string& command) { return to_python(rica::cli::option_docs(command)); },
      py::arg("command"),
      "The options of rica COMMAND (from the option table and the command's registration): keyword, option, "
      "type, default, help, engines");
  m.def("telemetry_window_async_us", &rica::defaults::telemetry::async_window_for, py::arg("nodes"),
        "The async engine's default telemetry window for a machine of NODES nodes: 5 ms per 1,024 nodes, at least 5 ms");
  m.def("describe", &describe, py::arg("spec"), "PEs, nodes, ports and buffer classes of a topology spec");
  m.def(
      "label", [](const std::string& spec, node_t v) {
        const rica::Topology t = rica::TopologyRegistry::parse(spec);
        if (v >= t.nodes()) throw rica::usage_error("label: node " + std::to_string(v) + " is not below " +
                                                    std::to_string(t.nodes()));
        return t.label(v);
      },
      py::arg("spec"), py::arg("node"));
  m.def("names", &names, "registered topologies, traffic patterns, applications and switch policies");
  m.def("list_text", [] {
    return rica::TopologyRegistry::help_text() + "\n" + rica::TrafficRegistry::help_text() + "\n" +
           rica::AppRegistry::help_text();
  });
}
