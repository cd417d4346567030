// read_otf2 (mpi_trace.hpp): an OTF2 archive's MPI records into per-rank operation lists.
//
// Ranks: the members of the COMM_LOCATIONS group of the MPI paradigm (rank i = its i-th member),
// or, without one, the locations in definition order. Each location's events are read in order:
//   Enter / Leave of a region       the call around the records (its name: MPI_Ssend is synchronous,
//                                   MpiSend/MpiRecv inside MPI_Sendrecv are concurrent); the compute
//                                   gap before an operation is its call's Enter minus the previous
//                                   call's Leave
//   MpiSend, MpiRecv                a blocking send / receive
//   MpiIsend, MpiIrecvRequest       a non-blocking send / receive posted (the receive's source, tag,
//                                   communicator and length come with its completion)
//   MpiIsendComplete, MpiIrecv      a wait for that request
//   MpiRequestCancelled             the receive is dropped
//   MpiCollectiveBegin / End        one collective
// Anything else (other paradigms, metrics, I/O) is skipped; its time falls into the gaps.
#include <fmt/format.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include "mpi_trace.hpp"
#include "rica/core.hpp"

namespace rica::replay {

const char* coll_name(Coll c) noexcept {
  switch (c) {
    case Coll::barrier: return "barrier";
    case Coll::bcast: return "bcast";
    case Coll::gather: return "gather";
    case Coll::gatherv: return "gatherv";
    case Coll::scatter: return "scatter";
    case Coll::scatterv: return "scatterv";
    case Coll::allgather: return "allgather";
    case Coll::allgatherv: return "allgatherv";
    case Coll::alltoall: return "alltoall";
    case Coll::alltoallv: return "alltoallv";
    case Coll::alltoallw: return "alltoallw";
    case Coll::allreduce: return "allreduce";
    case Coll::reduce: return "reduce";
    case Coll::reduce_scatter: return "reduce_scatter";
    case Coll::other: return "other";
  }
  return "other";
}

namespace {

// OTF2 reports errors through a callback (by default: printed). Captured here: the first message
// of the current read becomes the one-line error.
thread_local std::string otf2_message;
OTF2_ErrorCode quiet_errors(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char* fmt_,
                            va_list va) {
  if (otf2_message.empty()) {
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt_, va);
    otf2_message = fmt::format("{}{}{}", OTF2_Error_GetName(code), buf[0] ? ": " : "", buf);
  }
  return code;
}

struct Reader;

struct Loc {
  std::uint32_t rank = 0;
  // The open call (Enter ... Leave) and the compute gap before it.
  std::uint32_t region = ~0u;  ///< the region entered (its call index), ~0u outside MPI calls
  std::uint32_t depth = 0;
  std::uint64_t last_end = 0;  ///< the previous call's Leave (or the first event's time)
  std::uint64_t gap_pending = 0;
  bool have_time = false;
  bool gap_taken = false;      ///< the open call's gap was given to an operation
  bool sendrecv = false;       ///< the open call is MPI_Sendrecv: MpiSend/MpiRecv are concurrent
  std::vector<std::uint32_t> at_leave;  ///< operations the open call waits for at its Leave
  std::unordered_map<std::uint64_t, std::uint32_t> requests;  ///< request id -> its operation
  std::uint64_t coll_begin = 0;
};

struct Reader {
  Trace& t;
  std::unordered_map<std::uint64_t, std::string> strings;
  std::unordered_map<std::uint32_t, std::uint32_t> region_call;  ///< region -> call index
  std::unordered_map<std::uint32_t, std::string> region_name;
  struct GroupDef {
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    std::vector<std::uint64_t> members;
  };
  std::unordered_map<std::uint32_t, GroupDef> groups;
  struct CommDef {
    std::string name;
    std::uint32_t group;
  };
  std::map<std::uint32_t, CommDef> comm_defs;
  std::vector<std::uint64_t> locations;  ///< in definition order
  std::unordered_map<std::uint64_t, std::uint32_t> location_rank;
  std::unordered_map<std::uint32_t, std::uint32_t> comm_index;  ///< OTF2 comm ref -> Trace::comms
  std::uint64_t resolution = 1000000000, trace_length = 0;
  std::unordered_map<std::uint64_t, Loc> loc;
  std::string error;  ///< the first inconsistency found (one line)
  std::uint64_t total_ops = 0;

  explicit Reader(Trace& tr) : t(tr) {}

  std::uint64_t ns(std::uint64_t ticks) const {
    return resolution == 1000000000 ? ticks
                                    : static_cast<std::uint64_t>(static_cast<long double>(ticks) * 1e9L / resolution);
  }
  std::uint32_t call_of(const std::string& name) {
    const auto it = std::find(t.calls.begin(), t.calls.end(), name);
    if (it != t.calls.end()) return static_cast<std::uint32_t>(it - t.calls.begin());
    t.calls.push_back(name);
    return static_cast<std::uint32_t>(t.calls.size() - 1);
  }
  bool fail(std::string msg) {
    if (error.empty()) error = std::move(msg);
    return false;
  }
  /// Translates a communicator-relative rank; false (and the error) when it does not exist.
  bool world(const Loc& l, std::uint64_t pos, OTF2_CommRef comm, std::uint32_t peer, std::uint32_t& c,
             std::uint32_t& w, const char* what) {
    const auto it = comm_index.find(comm);
    if (it == comm_index.end())
      return fail(fmt::format("rank {} event {}: {} on communicator {}, which the archive does not define", l.rank,
                              pos, what, comm));
    c = it->second;
    const auto& m = t.comms[c].members;
    if (peer >= m.size())
      return fail(fmt::format("rank {} event {}: {} names rank {} of communicator '{}', which has {} ranks", l.rank, pos,
                              what, peer, t.comms[c].name, m.size()));
    w = m[peer];
    return true;
  }
  /// A new operation on l's rank, with the compute gap before it (once per call).
  Op& add(Loc& l, OTF2_TimeStamp time, std::uint64_t pos, OpKind k) {
    const std::uint64_t now = ns(time);
    std::uint64_t gap = 0;
    if (l.depth == 0) {  // outside any call (a trace without Enter/Leave): the gap since the last record
      gap = l.have_time && now > l.last_end ? now - l.last_end : 0;
      l.last_end = now;
      l.have_time = true;
    } else if (!l.gap_taken) {
      gap = l.gap_pending;
      l.gap_taken = true;
    }
    auto& v = t.ops[l.rank];
    Op& o = v.emplace_back();
    o.kind = k;
    o.gap_ns = gap;
    o.event = pos;
    o.call = l.region != ~0u ? l.region : call_of("(no region)");
    ++total_ops;
    return o;
  }
  std::uint32_t last(const Loc& l) const { return static_cast<std::uint32_t>(t.ops[l.rank].size() - 1); }
  Loc* at(OTF2_LocationRef location) {
    const auto it = loc.find(location);
    return it == loc.end() ? nullptr : &it->second;
  }
  bool room() {
    if (total_ops < max_ops) return true;
    return fail(fmt::format("more than {} operations; rica replays traces up to that size", max_ops));
  }
  void wait_for(Loc& l, OTF2_TimeStamp time, std::uint64_t pos, std::uint32_t op) {
    Op& w = add(l, time, pos, OpKind::wait);
    w.ref = op;
    w.blocking = true;
  }
};

#define RICA_CB(name, ...) OTF2_CallbackCode name(__VA_ARGS__)

// ---- global definitions -----------------------------------------------------------------------
RICA_CB(def_string, void* u, OTF2_StringRef self, const char* s) {
  static_cast<Reader*>(u)->strings[self] = s ? s : "";
  return OTF2_CALLBACK_SUCCESS;
}
RICA_CB(def_clock, void* u, uint64_t resolution, uint64_t, uint64_t length, uint64_t) {
  auto* r = static_cast<Reader*>(u);
  r->resolution = resolution ? resolution : 1;
  r->trace_length = length;
  return OTF2_CALLBACK_SUCCESS;
}
RICA_CB(def_region, void* u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_StringRef, OTF2_RegionRole,
        OTF2_Paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t, uint32_t) {
  auto* r = static_cast<Reader*>(u);
  const auto it = r->strings.find(name);
  r->region_name[self] = it == r->strings.end() ? fmt::format("region {}", self) : it->second;
  return OTF2_CALLBACK_SUCCESS;
}
RICA_CB(def_location, void* u, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType type, uint64_t,
        OTF2_LocationGroupRef) {
  auto* r = static_cast<Reader*>(u);
  if (type == OTF2_LOCATION_TYPE_CPU_THREAD || type == OTF2_LOCATION_TYPE_UNKNOWN) r->locations.push_back(self);
  return OTF2_CALLBACK_SUCCESS;
}
RICA_CB(def_group, void* u, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm paradigm,
        OTF2_GroupFlag, uint32_t n, const uint64_t* members) {
  auto* r = static_cast<Reader*>(u);
  if (n > max_ranks) return r->fail(fmt::format("group {} has {} members; at most {} ranks", self, n, max_ranks)),
                            OTF2_CALLBACK_INTERRUPT;
  r->groups[self] = {type, paradigm, std::vector<std::uint64_t>(members, members + n)};
  return OTF2_CALLBACK_SUCCESS;
}
RICA_CB(def_comm, void* u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef, OTF2_CommFlag) {
  auto* r = static_cast<Reader*>(u);
  const auto it = r->strings.find(name);
  r->comm_defs[self] = {it == r->strings.end() ? fmt::format("comm {}", self) : it->second, group};
  return OTF2_CALLBACK_SUCCESS;
}

// ---- events -----------------------------------------------------------------------------------
#define RICA_EVT(name, ...)                                                                           \
  OTF2_CallbackCode name(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t pos, void* u,       \
                         OTF2_AttributeList*, __VA_ARGS__)
#define RICA_LOC()                                            \
  auto* r = static_cast<Reader*>(u);                          \
  Loc* lp = r->at(location);                                  \
  if (!lp) return OTF2_CALLBACK_SUCCESS; /* not an MPI rank */ \
  Loc& l = *lp;                                               \
  ++r->t.events;                                              \
  (void)time;                                                 \
  (void)pos

RICA_EVT(evt_enter, OTF2_RegionRef region) {
  RICA_LOC();
  const std::uint64_t now = r->ns(time);
  if (l.depth++ == 0) {
    const auto it = r->region_name.find(region);
    const std::string name = it == r->region_name.end() ? fmt::format("region {}", region) : it->second;
    l.region = r->call_of(name);
    l.gap_pending = l.have_time && now > l.last_end ? now - l.last_end : 0;
    l.have_time = true;
    l.gap_taken = false;
    l.sendrecv = name.rfind("MPI_Sendrecv", 0) == 0;
  }
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_leave, OTF2_RegionRef) {
  RICA_LOC();
  if (l.depth == 0) return OTF2_CALLBACK_SUCCESS;  // a Leave without its Enter (a cut trace): ignored
  if (--l.depth == 0) {
    for (std::uint32_t op : l.at_leave) r->wait_for(l, time, pos, op);
    l.at_leave.clear();
    // A call that recorded nothing (MPI_Comm_rank in a foreign trace...) stays compute: the gap
    // before it carries on to the next call.
    if (!l.gap_taken) return OTF2_CALLBACK_SUCCESS;
    l.last_end = r->ns(time);
    l.region = ~0u;
  }
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_send, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  RICA_LOC();
  std::uint32_t c = 0, w = 0;
  if (!r->room() || !r->world(l, pos, comm, receiver, c, w, "MpiSend")) return OTF2_CALLBACK_INTERRUPT;
  Op& o = r->add(l, time, pos, OpKind::send);
  o.peer = w, o.comm = c, o.tag = tag, o.bytes = length;
  const std::string& call = r->t.calls[o.call];
  o.mode = call == "MPI_Ssend" ? SendMode::synchronous
           : call == "MPI_Bsend" ? SendMode::buffered
           : call == "MPI_Rsend" ? SendMode::ready
                                 : SendMode::standard;
  o.blocking = !l.sendrecv;
  if (l.sendrecv) l.at_leave.push_back(r->last(l));
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_isend, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length, uint64_t request) {
  RICA_LOC();
  std::uint32_t c = 0, w = 0;
  if (!r->room() || !r->world(l, pos, comm, receiver, c, w, "MpiIsend")) return OTF2_CALLBACK_INTERRUPT;
  Op& o = r->add(l, time, pos, OpKind::send);
  o.peer = w, o.comm = c, o.tag = tag, o.bytes = length;
  const std::string& call = r->t.calls[o.call];
  o.mode = call == "MPI_Issend" ? SendMode::synchronous
           : call == "MPI_Ibsend" ? SendMode::buffered
           : call == "MPI_Irsend" ? SendMode::ready
                                  : SendMode::standard;
  l.requests[request] = r->last(l);
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_isend_complete, uint64_t request) {
  RICA_LOC();
  const auto it = l.requests.find(request);
  if (it == l.requests.end())
    return r->fail(fmt::format("rank {} event {}: MpiIsendComplete of request {}, which no MpiIsend started", l.rank,
                               pos, request)),
           OTF2_CALLBACK_INTERRUPT;
  const std::uint32_t op = it->second;
  l.requests.erase(it);
  if (!r->room()) return OTF2_CALLBACK_INTERRUPT;
  r->wait_for(l, time, pos, op);
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_recv, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length) {
  RICA_LOC();
  std::uint32_t c = 0, w = 0;
  if (!r->room() || !r->world(l, pos, comm, sender, c, w, "MpiRecv")) return OTF2_CALLBACK_INTERRUPT;
  Op& o = r->add(l, time, pos, OpKind::recv);
  o.peer = w, o.comm = c, o.tag = tag, o.bytes = length;
  o.blocking = !l.sendrecv;
  if (l.sendrecv) l.at_leave.push_back(r->last(l));
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_irecv_request, uint64_t request) {
  RICA_LOC();
  if (!r->room()) return OTF2_CALLBACK_INTERRUPT;
  Op& o = r->add(l, time, pos, OpKind::recv);
  o.peer = ~0u;  // known at completion
  l.requests[request] = r->last(l);
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_irecv, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length, uint64_t request) {
  RICA_LOC();
  const auto it = l.requests.find(request);
  if (it == l.requests.end())
    return r->fail(fmt::format("rank {} event {}: MpiIrecv completes request {}, which no MpiIrecvRequest posted",
                               l.rank, pos, request)),
           OTF2_CALLBACK_INTERRUPT;
  const std::uint32_t op = it->second;
  l.requests.erase(it);
  std::uint32_t c = 0, w = 0;
  if (!r->room() || !r->world(l, pos, comm, sender, c, w, "MpiIrecv")) return OTF2_CALLBACK_INTERRUPT;
  Op& o = r->t.ops[l.rank][op];
  if (o.kind != OpKind::recv)
    return r->fail(fmt::format("rank {} event {}: MpiIrecv completes request {}, which an MpiIsend started", l.rank,
                               pos, request)),
           OTF2_CALLBACK_INTERRUPT;
  o.peer = w, o.comm = c, o.tag = tag, o.bytes = length;
  r->wait_for(l, time, pos, op);
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_cancelled, uint64_t request) {
  RICA_LOC();
  const auto it = l.requests.find(request);
  if (it != l.requests.end()) {
    Op& o = r->t.ops[l.rank][it->second];
    if (o.kind == OpKind::recv) o.kind = OpKind::wait, o.ref = ~0u;  // dropped: a no-op (see ops_done)
    l.requests.erase(it);
  }
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode evt_coll_begin_cb(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t pos, void* u,
                                    OTF2_AttributeList*) {
  RICA_LOC();
  l.coll_begin = time;
  return OTF2_CALLBACK_SUCCESS;
}
RICA_EVT(evt_coll_end, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received) {
  RICA_LOC();
  std::uint32_t c = 0, w = 0;
  const bool rooted = root != OTF2_UNDEFINED_UINT32;
  if (!r->room() || !r->world(l, pos, comm, rooted ? root : 0, c, w, "MpiCollectiveEnd"))
    return OTF2_CALLBACK_INTERRUPT;
  Coll k = Coll::other;
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: k = Coll::barrier; break;
    case OTF2_COLLECTIVE_OP_BCAST: k = Coll::bcast; break;
    case OTF2_COLLECTIVE_OP_GATHER: k = Coll::gather; break;
    case OTF2_COLLECTIVE_OP_GATHERV: k = Coll::gatherv; break;
    case OTF2_COLLECTIVE_OP_SCATTER: k = Coll::scatter; break;
    case OTF2_COLLECTIVE_OP_SCATTERV: k = Coll::scatterv; break;
    case OTF2_COLLECTIVE_OP_ALLGATHER: k = Coll::allgather; break;
    case OTF2_COLLECTIVE_OP_ALLGATHERV: k = Coll::allgatherv; break;
    case OTF2_COLLECTIVE_OP_ALLTOALL: k = Coll::alltoall; break;
    case OTF2_COLLECTIVE_OP_ALLTOALLV: k = Coll::alltoallv; break;
    case OTF2_COLLECTIVE_OP_ALLTOALLW: k = Coll::alltoallw; break;
    case OTF2_COLLECTIVE_OP_ALLREDUCE: k = Coll::allreduce; break;
    case OTF2_COLLECTIVE_OP_REDUCE: k = Coll::reduce; break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: k = Coll::reduce_scatter; break;
    default: k = Coll::other; break;
  }
  Op& o = r->add(l, time, pos, OpKind::coll);
  o.coll = k, o.comm = c, o.root = rooted ? w : ~0u, o.bytes = sent, o.bytes2 = received, o.blocking = true;
  ++r->t.collective_calls[coll_name(k)];
  return OTF2_CALLBACK_SUCCESS;
}

std::string anchor_of(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (!fs::exists(p, ec)) throw usage_error(fmt::format("replay: trace={}: no such file or directory", quote_input(path)));
  if (fs::is_directory(p, ec)) {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.path().extension() == ".otf2") found.push_back(e.path().string());
    if (found.size() != 1)
      throw usage_error(fmt::format("replay: trace={}: a directory must hold exactly one OTF2 anchor file (NAME.otf2); "
                                    "found {}",
                                    quote_input(path), found.size()));
    return found.front();
  }
  return path;
}

}  // namespace

Trace read_otf2(const std::string& path) {
  const std::string anchor = anchor_of(path);
  const std::string what = fmt::format("replay: trace={}", quote_input(path));
  otf2_message.clear();
  void* old_data = nullptr;
  const OTF2_ErrorCallback old = OTF2_Error_RegisterCallback(quiet_errors, old_data);
  struct Restore {
    OTF2_ErrorCallback cb;
    ~Restore() { OTF2_Error_RegisterCallback(cb, nullptr); }
  } restore{old};
  auto bad = [&](const std::string& why) {
    return usage_error(fmt::format("{}: {}{}", what, why, otf2_message.empty() ? "" : " (OTF2: " + otf2_message + ")"));
  };
  OTF2_Reader* rd = OTF2_Reader_Open(anchor.c_str());
  if (!rd) throw bad("is not an OTF2 archive");
  struct Close {
    OTF2_Reader* r;
    ~Close() { OTF2_Reader_Close(r); }
  } close{rd};
  if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) throw bad("cannot be read");
  uint64_t nloc = 0;
  if (OTF2_Reader_GetNumberOfLocations(rd, &nloc) != OTF2_SUCCESS) throw bad("is not an OTF2 archive");
  Trace t;
  t.path = anchor;
  Reader r(t);
  {
    char* creator = nullptr;
    if (OTF2_Reader_GetCreator(rd, &creator) == OTF2_SUCCESS && creator) {
      t.creator = creator;
      free(creator);
    }
  }
  // Global definitions.
  OTF2_GlobalDefReader* gdr = OTF2_Reader_GetGlobalDefReader(rd);
  if (!gdr) throw bad("has no global definitions (not an OTF2 archive, or truncated)");
  OTF2_GlobalDefReaderCallbacks* gcb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
  OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &r);
  OTF2_GlobalDefReaderCallbacks_Delete(gcb);
  uint64_t ndefs = 0;
  const OTF2_ErrorCode gerr = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &ndefs);
  if (!r.error.empty()) throw usage_error(fmt::format("{}: {}", what, r.error));
  if (gerr != OTF2_SUCCESS) throw bad("its global definitions cannot be read (truncated or corrupt)");
  OTF2_Reader_CloseGlobalDefReader(rd, gdr);

  // Ranks: the MPI COMM_LOCATIONS group, else every location in order.
  std::vector<std::uint64_t> rank_loc;
  for (const auto& [id, g] : r.groups)
    if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && (g.paradigm == OTF2_PARADIGM_MPI || rank_loc.empty()))
      rank_loc = g.members;
  if (rank_loc.empty()) rank_loc = r.locations;
  if (rank_loc.empty()) throw bad("defines no locations (no MPI ranks to replay)");
  if (rank_loc.size() > max_ranks) throw bad(fmt::format("has {} ranks; at most {}", rank_loc.size(), max_ranks));
  t.ranks = static_cast<std::uint32_t>(rank_loc.size());
  t.ops.resize(t.ranks);
  for (std::uint32_t i = 0; i < t.ranks; ++i) {
    if (r.location_rank.count(rank_loc[i])) throw bad(fmt::format("location {} is two ranks", rank_loc[i]));
    r.location_rank[rank_loc[i]] = i;
    r.loc[rank_loc[i]].rank = i;
  }
  // Communicators: members as world ranks (a COMM_GROUP lists indices into COMM_LOCATIONS).
  for (const auto& [id, c] : r.comm_defs) {
    Comm cm;
    cm.name = c.name;
    const auto g = r.groups.find(c.group);
    if (g == r.groups.end()) continue;  // an undefined group: ops on it are refused when met
    if (g->second.type == OTF2_GROUP_TYPE_COMM_GROUP) {
      for (std::uint64_t m : g->second.members) {
        if (m >= t.ranks) throw bad(fmt::format("communicator '{}' names rank {} of {}", c.name, m, t.ranks));
        cm.members.push_back(static_cast<std::uint32_t>(m));
      }
    } else if (g->second.type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
      for (std::uint32_t i = 0; i < t.ranks; ++i) cm.members.push_back(i);
    } else {
      continue;  // COMM_SELF and others: not replayed
    }
    r.comm_index[id] = static_cast<std::uint32_t>(t.comms.size());
    t.comms.push_back(std::move(cm));
  }
  t.wall_ns = r.ns(r.trace_length);

  // Events, one rank after the other (local definitions first: they carry the id mappings).
  for (std::uint32_t i = 0; i < t.ranks; ++i) OTF2_Reader_SelectLocation(rd, rank_loc[i]);
  const bool defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
  if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) throw bad("its event files cannot be opened");
  for (std::uint32_t i = 0; i < t.ranks; ++i) {
    if (defs) {
      if (OTF2_DefReader* dr = OTF2_Reader_GetDefReader(rd, rank_loc[i])) {
        uint64_t n = 0;
        const OTF2_ErrorCode e = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
        if (e != OTF2_SUCCESS) throw bad(fmt::format("rank {}: its local definitions cannot be read (truncated?)", i));
      }
    }
  }
  if (defs) OTF2_Reader_CloseDefFiles(rd);
  OTF2_EvtReaderCallbacks* ecb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, evt_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, evt_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, evt_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, evt_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, evt_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, evt_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, evt_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, evt_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(ecb, evt_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, evt_coll_begin_cb);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, evt_coll_end);
  for (std::uint32_t i = 0; i < t.ranks; ++i) {
    OTF2_EvtReader* er = OTF2_Reader_GetEvtReader(rd, rank_loc[i]);
    if (!er) {
      OTF2_EvtReaderCallbacks_Delete(ecb);
      throw bad(fmt::format("rank {} (location {}) has no event file (truncated archive?)", i, rank_loc[i]));
    }
    OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, &r);
    uint64_t n = 0;
    const OTF2_ErrorCode e = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
    OTF2_Reader_CloseEvtReader(rd, er);
    if (!r.error.empty()) {
      OTF2_EvtReaderCallbacks_Delete(ecb);
      throw usage_error(fmt::format("{}: {}", what, r.error));
    }
    if (e != OTF2_SUCCESS) {
      OTF2_EvtReaderCallbacks_Delete(ecb);
      throw bad(fmt::format("rank {}: its events cannot be read after {} records (truncated or corrupt)", i, n));
    }
    // Requests never completed: a receive whose source is unknown is dropped (with a warning).
    Loc& l = r.loc[rank_loc[i]];
    std::uint64_t dropped = 0;
    for (const auto& [req, op] : l.requests) {
      Op& o = t.ops[i][op];
      if (o.kind == OpKind::recv && o.peer == ~0u) o.kind = OpKind::wait, o.ref = ~0u, ++dropped;
    }
    if (dropped)
      t.warnings.push_back(fmt::format("rank {}: {} non-blocking receive{} never completed in the trace; not replayed",
                                       i, dropped, dropped == 1 ? "" : "s"));
  }
  OTF2_EvtReaderCallbacks_Delete(ecb);
  OTF2_Reader_CloseEvtFiles(rd);
  if (r.total_ops == 0) throw bad("holds no MPI communication records");
  return t;
}

std::string describe(const Trace& t, std::uint32_t rank, std::uint32_t op) {
  const Op& o = t.ops.at(rank).at(op);
  const std::string& call = o.call < t.calls.size() ? t.calls[o.call] : std::string("?");
  const std::uint32_t ci = o.comm & ~collective_comm;
  const std::string comm = ci < t.comms.size() ? (o.comm & collective_comm ? fmt::format("collective call {} on {}", o.tag, t.comms[ci].name) : t.comms[ci].name) : "?";
  switch (o.kind) {
    case OpKind::send:
      return fmt::format("rank {} event {} ({} to rank {}, tag {}, {} bytes, {})", rank, o.event, call, o.peer, o.tag,
                         o.bytes, comm);
    case OpKind::recv:
      return fmt::format("rank {} event {} ({} from rank {}, tag {}, {})", rank, o.event, call, o.peer, o.tag, comm);
    case OpKind::wait:
      return fmt::format("rank {} event {} ({} for its operation {})", rank, o.event, call, o.ref);
    case OpKind::coll:
      return fmt::format("rank {} event {} ({}, {})", rank, o.event, call, comm);
  }
  return "";
}

}  // namespace rica::replay
