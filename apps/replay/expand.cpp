// expand_collectives (mpi_trace.hpp): each collective call becomes its rank's share of the
// collective's schedule (rica/collectives.hpp, MPICH's algorithms): sends non-blocking, receives
// blocking, then a wait for each send (a blocking collective ends when its last operation ends).
// Its messages carry the communicator with the collective flag and the call's sequence number on
// that communicator as the tag, so they never match the program's own messages.
//
// The j-th collective call on a communicator is the same operation on every member: its kind and
// root must agree (usage_error naming both ranks otherwise). Sizes come from the records: the
// vector (allreduce, reduce, bcast), each rank's block (gather(v), scatter(v), allgather(v),
// reduce-scatter), the per-destination block (alltoall: sent / p); alltoallv, whose records give
// only each rank's total, is expanded with each rank's total spread evenly over its destinations.
#include <fmt/format.h>

#include <map>

#include "mpi_trace.hpp"
#include "rica/collectives.hpp"
#include "rica/core.hpp"

namespace rica::replay {

namespace {
struct Call {
  std::uint32_t rank, op;
};

coll::Kind kind_of(Coll c, bool& vector_counts) {
  vector_counts = false;
  switch (c) {
    case Coll::barrier: return coll::Kind::barrier;
    case Coll::bcast: return coll::Kind::bcast;
    case Coll::reduce: return coll::Kind::reduce;
    case Coll::allreduce: return coll::Kind::allreduce;
    case Coll::gatherv: vector_counts = true; [[fallthrough]];
    case Coll::gather: return coll::Kind::gather;
    case Coll::scatterv: vector_counts = true; [[fallthrough]];
    case Coll::scatter: return coll::Kind::scatter;
    case Coll::allgatherv: vector_counts = true; [[fallthrough]];
    case Coll::allgather: return coll::Kind::allgather;
    case Coll::alltoallv: vector_counts = true; [[fallthrough]];
    case Coll::alltoall: return coll::Kind::alltoall;
    case Coll::reduce_scatter: vector_counts = true; return coll::Kind::reduce_scatter;
    default: break;
  }
  throw std::logic_error("kind_of: not expandable");
}
}  // namespace

void expand_collectives(Trace& t, const std::string& choice) {
  // --collectives: kind -> algorithm, checked against the schedule library.
  std::map<coll::Kind, coll::Algorithm> chosen;
  if (!choice.empty()) {
    std::string s = choice;
    if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
    std::size_t at = 0;
    while (at < s.size()) {
      std::size_t end = s.find_first_of(",+", at);
      if (end == std::string::npos) end = s.size();
      const std::string item = s.substr(at, end - at);
      const auto eq = item.find_first_of("=:");
      if (item.empty() || eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        throw usage_error(fmt::format("--collectives: {} must be KIND=ALGORITHM (e.g. allreduce=ring)", quote_input(item)));
      try {
        const coll::Kind k = coll::parse_kind(item.substr(0, eq));
        chosen[k] = coll::parse_algorithm(k, item.substr(eq + 1));
      } catch (const usage_error& e) {
        throw usage_error(fmt::format("--collectives: {}", e.what()));
      }
      at = end + 1;
    }
  }
  // Collective calls per (communicator, sequence number).
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<Call>> calls;
  std::vector<std::map<std::uint32_t, std::uint32_t>> seq(t.ranks);  // [rank][comm] -> calls so far
  bool any = false;
  for (std::uint32_t r = 0; r < t.ranks; ++r)
    for (std::uint32_t i = 0; i < t.ops[r].size(); ++i) {
      const Op& o = t.ops[r][i];
      if (o.kind != OpKind::coll) continue;
      any = true;
      if (o.coll == Coll::other || o.coll == Coll::alltoallw)
        throw usage_error(fmt::format("replay: {}: {} is not replayed (no schedule for it)", describe(t, r, i),
                                      coll_name(o.coll)));
      calls[{o.comm, seq[r][o.comm]++}].push_back({r, i});
    }
  if (!any) return;
  // The expansion of each rank's calls: (rank, op) -> its operations.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<Op>> into;
  std::map<std::string, coll::Schedule> cache;
  for (const auto& [key, members] : calls) {
    const auto [comm, k] = key;
    const Comm& c = t.comms.at(comm);
    const std::uint32_t p = static_cast<std::uint32_t>(c.members.size());
    const Call& first = members.front();
    const Op& f = t.ops[first.rank][first.op];
    if (members.size() != p) {
      // Some member never made this call: name one that did and one that did not.
      std::vector<bool> in(t.ranks, false);
      for (const Call& m : members) in[m.rank] = true;
      std::uint32_t missing = 0;
      for (std::uint32_t w : c.members)
        if (!in[w]) missing = w;
      throw usage_error(fmt::format("replay: {}: collective call {} on '{}', which rank {} never makes (every member "
                                    "must call it)",
                                    describe(t, first.rank, first.op), k, c.name, missing));
    }
    bool v = false;
    const coll::Kind kind = kind_of(f.coll, v);
    coll::Spec s;
    s.kind = kind;
    s.p = p;
    // Each member's comm rank, and its record.
    std::vector<const Op*> rec(p, nullptr);
    std::vector<std::uint32_t> local_of(t.ranks, ~0u);
    for (std::uint32_t j = 0; j < p; ++j) local_of[c.members[j]] = j;
    for (const Call& m : members) {
      const Op& o = t.ops[m.rank][m.op];
      if (o.coll != f.coll || o.root != f.root)
        throw usage_error(fmt::format("replay: {} and {}: collective call {} on '{}' differs ({} root {} against {} root {})",
                                      describe(t, first.rank, first.op), describe(t, m.rank, m.op), k, c.name,
                                      coll_name(f.coll), f.root, coll_name(o.coll), o.root));
      rec[local_of[m.rank]] = &o;
    }
    std::uint64_t big = 0;
    for (const Op* o : rec) big = std::max({big, o->bytes, o->bytes2});
    switch (kind) {
      case coll::Kind::barrier: s.bytes = 0; break;
      case coll::Kind::bcast:
      case coll::Kind::reduce:
      case coll::Kind::allreduce: s.bytes = std::max<std::uint64_t>(big, 1); break;
      case coll::Kind::gather:
      case coll::Kind::allgather:
        for (const Op* o : rec) s.counts.push_back(o->bytes);
        break;
      case coll::Kind::scatter:
      case coll::Kind::reduce_scatter:
        for (const Op* o : rec) s.counts.push_back(o->bytes2);
        break;
      case coll::Kind::alltoall:
        for (const Op* o : rec)
          for (std::uint32_t d = 0; d < p; ++d) s.counts.push_back(o->bytes / p);
        break;
    }
    if (!s.counts.empty()) {
      bool same = true;
      for (auto x : s.counts) same = same && x == s.counts.front();
      std::uint64_t sum = 0;
      for (auto x : s.counts) sum += x;
      if (same && s.counts.front() > 0 && !v) {
        s.bytes = s.counts.front();
        s.counts.clear();
      } else {
        s.bytes = std::max<std::uint64_t>(1, sum / s.counts.size());
      }
    }
    if (f.root != ~0u) {
      if (local_of[f.root] == ~0u)
        throw usage_error(fmt::format("replay: {}: the root, rank {}, is not in '{}'", describe(t, first.rank, first.op),
                                      f.root, c.name));
      s.root = local_of[f.root];
    }
    const auto it = chosen.find(kind);
    s.algorithm = it != chosen.end() ? it->second : coll::choose(kind, p, s.bytes);
    std::string ck = fmt::format("{}/{}/{}/{}/{}", static_cast<int>(kind), static_cast<int>(s.algorithm), p, s.bytes, s.root);
    for (auto x : s.counts) ck += fmt::format(",{}", x);
    auto sit = cache.find(ck);
    if (sit == cache.end()) {
      try {
        sit = cache.emplace(ck, coll::build(s)).first;
      } catch (const usage_error& e) {
        throw usage_error(fmt::format("replay: {}: {}", describe(t, first.rank, first.op), e.what()));
      }
    }
    const coll::Schedule& sc = sit->second;
    t.collective_algorithms[std::string(coll::name(kind))] = std::string(coll::name(s.algorithm));
    for (const Call& m : members) {
      const Op& o = t.ops[m.rank][m.op];
      std::vector<Op>& out = into[{m.rank, m.op}];
      std::vector<std::uint32_t> sends;  // positions in `out`
      for (const coll::Op& x : sc.ranks[local_of[m.rank]]) {
        Op e;
        e.kind = x.type == coll::Op::Type::send ? OpKind::send : OpKind::recv;
        e.blocking = x.type == coll::Op::Type::recv;
        e.peer = c.members.at(x.peer);
        e.comm = comm | collective_comm;
        e.tag = k;
        e.bytes = x.bytes;
        e.call = o.call;
        e.event = o.event;
        if (x.type == coll::Op::Type::send) sends.push_back(static_cast<std::uint32_t>(out.size()));
        out.push_back(e);
      }
      for (std::uint32_t pos : sends) {
        Op w;
        w.kind = OpKind::wait;
        w.blocking = true;
        w.ref = pos;  // relative: made absolute below
        w.call = o.call;
        w.event = o.event;
        w.coll = Coll::other;
        w.root = 1;  // marks a relative reference (below)
        out.push_back(w);
      }
      if (!out.empty()) out.front().gap_ns = o.gap_ns;
    }
  }
  // Rebuild each rank's list: collectives replaced, wait references renumbered.
  for (std::uint32_t r = 0; r < t.ranks; ++r) {
    std::vector<Op>& old = t.ops[r];
    std::vector<std::uint32_t> where(old.size(), ~0u);
    std::vector<Op> next;
    next.reserve(old.size());
    for (std::uint32_t i = 0; i < old.size(); ++i) {
      if (old[i].kind != OpKind::coll) {
        where[i] = static_cast<std::uint32_t>(next.size());
        next.push_back(old[i]);
        continue;
      }
      const auto& ex = into[{r, i}];
      const auto base = static_cast<std::uint32_t>(next.size());
      std::uint64_t gap = old[i].gap_ns;
      for (Op e : ex) {
        if (e.kind == OpKind::wait && e.root == 1) e.ref += base, e.root = 0;
        next.push_back(e);
      }
      if (ex.empty() && i + 1 < old.size()) old[i + 1].gap_ns += gap;  // a collective of one rank: nothing to do
    }
    // Renumber the program's own waits (collective waits were made absolute above).
    std::vector<bool> from_coll(next.size(), false);
    {
      std::uint32_t j = 0;
      for (std::uint32_t i = 0; i < old.size(); ++i) {
        if (old[i].kind != OpKind::coll) {
          ++j;
          continue;
        }
        const auto n = static_cast<std::uint32_t>(into[{r, i}].size());
        for (std::uint32_t q = 0; q < n; ++q) from_coll[j + q] = true;
        j += n;
      }
    }
    for (std::uint32_t j = 0; j < next.size(); ++j)
      if (!from_coll[j] && next[j].kind == OpKind::wait && next[j].ref != ~0u) next[j].ref = where.at(next[j].ref);
    old = std::move(next);
  }
}

}  // namespace rica::replay
