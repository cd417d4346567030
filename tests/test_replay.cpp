// The closed-loop MPI replay (apps/replay; docs/replay.md) on archives written directly with the
// OTF2 API (tests/otf2_writer.hpp): foreign traces, hand-worked matching (tags, non-overtaking,
// wildcards resolved as recorded), the static matching pass's refusals, bad archives, the
// rendezvous deadlock, compute gaps, the map, exact counts and thread-count independence.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mpi_replay.hpp"
#include "mpi_trace.hpp"
#include "otf2_writer.hpp"
#include "rica/collectives.hpp"
#include "rica/core.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"

namespace {

using rica::replay::MpiReplay;
using rica::replay::ReplayConfig;
using Rec = rica::test::Otf2Writer::Rec;
namespace fs = std::filesystem;

std::string tmp(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("rica_test_replay_" + std::to_string(::getpid())) / name;
  fs::create_directories(p.parent_path());
  return p.string();
}

rica::RunStats run(const rica::Topology& t, rica::App& app, unsigned threads = 1, std::uint64_t seed = 5) {
  rica::EngineConfig cfg;
  cfg.engine = rica::EngineKind::cycle;
  cfg.threads = threads;
  cfg.seed = seed;
  cfg.cycles = rica::defaults::limits::cycles;  // the window stays open until the program ends
  cfg.progress = false;
  return rica::run(t, app, cfg);
}

ReplayConfig config(const std::string& path, double scale = 0) {
  ReplayConfig c;
  c.trace = path;
  c.compute_scale = scale;
  return c;
}

/// Ring of n ranks, `rounds` rounds of `bytes` (even ranks send first), as examples/mpi/ring.c.
std::string ring_archive(const std::string& name, std::uint32_t n, unsigned rounds, std::uint64_t bytes, bool bare = false) {
  rica::test::Otf2Writer w(tmp(name), n, bare);
  for (unsigned k = 0; k < rounds; ++k)
    for (std::uint32_t r = 0; r < n; ++r) {
      if (r % 2 == 0) {
        w.send(r, (r + 1) % n, k, bytes);
        w.recv(r, (r + n - 1) % n, k, bytes);
      } else {
        w.recv(r, (r + n - 1) % n, k, bytes);
        w.send(r, (r + 1) % n, k, bytes);
      }
    }
  return w.write();
}

TEST(ReplayReader, ForeignArchiveReplaysWithExactCounts) {
  const std::string a = ring_archive("ring", 8, 5, 100);
  const auto t = rica::replay::read_otf2(a);
  EXPECT_EQ(t.ranks, 8u);
  EXPECT_EQ(t.creator, "rica test writer");
  for (bool bare : {false, true}) {  // with and without Enter/Leave around the records
    const std::string p = bare ? ring_archive("ring_bare", 8, 5, 100, true) : a;
    const auto topo = rica::TopologyRegistry::parse("torus:8");
    MpiReplay app(config(p), topo.pes());
    const auto st = run(topo, app);
    std::string why;
    EXPECT_TRUE(app.verify(why)) << why;
    EXPECT_TRUE(st.app_ok) << st.app_message;
    EXPECT_TRUE(st.conservation_ok);
    const auto j = app.summary();
    EXPECT_EQ(j["p2p_messages"], 40u);
    EXPECT_EQ(j["bytes"], 4000u);
    // 100 bytes at 16 per packet: 7 packets a message, all eager (<= 4096).
    EXPECT_EQ(j["packets"], 280u);
    EXPECT_EQ(st.delivered, 280u);
    EXPECT_TRUE(j["deadlock"].is_null());
  }
}

TEST(ReplayMatching, TagsPickTheirSendsAndNonOvertakingKeepsOrder) {
  // Rank 0 sends tag 1 (10 B), tag 2 (20 B), tag 1 (30 B); rank 1 receives tag 2 first, then the two
  // tag 1s: the tag-2 receive gets 20 B, the tag-1 receives get 10 then 30 (non-overtaking).
  rica::test::Otf2Writer w(tmp("tags"), 2);
  w.isend(0, 1, 1, 10, 1).isend(0, 1, 2, 20, 2).isend(0, 1, 1, 30, 3);
  w.wait(0, {{Rec::isend_complete, 0, 0, 0, 1}, {Rec::isend_complete, 0, 0, 0, 2}, {Rec::isend_complete, 0, 0, 0, 3}});
  w.recv(1, 0, 2, 20).recv(1, 0, 1, 10).recv(1, 0, 1, 30);
  auto t = rica::replay::read_otf2(w.write());
  rica::replay::match(t);
  ASSERT_EQ(t.ops[1].size(), 3u);
  EXPECT_EQ(t.ops[1][0].bytes, 20u);
  EXPECT_EQ(t.ops[1][0].ref, 1u);  // rank 0's second send
  EXPECT_EQ(t.ops[1][1].ref, 0u);
  EXPECT_EQ(t.ops[1][2].ref, 2u);
  const auto topo = rica::TopologyRegistry::parse("torus:4");
  MpiReplay app(std::make_shared<rica::replay::Trace>(t), config(""), topo.pes());
  const auto st = run(topo, app);
  EXPECT_TRUE(st.app_ok) << st.app_message;
}

TEST(ReplayMatching, WildcardsAreResolvedAsRecorded) {
  // A master (rank 0) receives from "any source" three times; the trace says 2, 1, 2. Workers 1 and
  // 2 send 1 and 2 messages. Receives are posted non-blocking, completed with the recorded source.
  rica::test::Otf2Writer w(tmp("wild"), 3);
  w.irecv(0, 1).irecv(0, 2).irecv(0, 3);
  w.wait(0, {{Rec::irecv, 2, 5, 8, 1}, {Rec::irecv, 1, 5, 8, 2}, {Rec::irecv, 2, 5, 8, 3}});
  w.send(1, 0, 5, 8);
  w.send(2, 0, 5, 8).send(2, 0, 5, 8);
  auto t = rica::replay::read_otf2(w.write());
  rica::replay::match(t);
  EXPECT_EQ(t.ops[0][0].peer, 2u);
  EXPECT_EQ(t.ops[0][0].ref, 0u);  // rank 2's first send
  EXPECT_EQ(t.ops[0][1].peer, 1u);
  EXPECT_EQ(t.ops[0][2].ref, 1u);  // rank 2's second send
  const auto topo = rica::TopologyRegistry::parse("torus:4");
  MpiReplay app(std::make_shared<rica::replay::Trace>(t), config(""), topo.pes());
  const auto st = run(topo, app);
  EXPECT_TRUE(st.app_ok) << st.app_message;
  EXPECT_EQ(app.summary()["p2p_messages"], 3u);
}

TEST(ReplayMatching, UnmatchedReceiveIsRefusedNamingRankAndEvent) {
  rica::test::Otf2Writer w(tmp("unmatched"), 2);
  w.send(0, 1, 3, 8);
  w.recv(1, 0, 3, 8).recv(1, 0, 4, 8);  // nobody sends tag 4
  auto t = rica::replay::read_otf2(w.write());
  try {
    rica::replay::match(t);
    FAIL() << "an unmatched receive was accepted";
  } catch (const rica::usage_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("rank 1 event"), std::string::npos) << m;
    EXPECT_NE(m.find("MPI_Recv from rank 0, tag 4"), std::string::npos) << m;
    EXPECT_NE(m.find("no send matches"), std::string::npos) << m;
  }
}

TEST(ReplayReader, BadArchivesAreOneLineErrors) {
  const std::string junk = tmp("junk.otf2");
  std::ofstream(junk) << "not an archive\n";
  auto refused = [](const std::string& path, const std::string& expect) {
    try {
      (void)rica::replay::read_otf2(path);
      ADD_FAILURE() << path << " was accepted";
    } catch (const rica::usage_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(expect), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  };
  refused(junk, "is not an OTF2 archive");
  refused(tmp("absent.otf2"), "no such file");
  // Truncated: an event file cut in half.
  const std::string a = ring_archive("cut", 4, 20, 64);
  const fs::path evt = fs::path(a).parent_path() / "traces" / "2.evt";
  const auto size = fs::file_size(evt);
  fs::resize_file(evt, size / 2);
  refused(a, "rank 2");
  // An event file missing altogether.
  const std::string b = ring_archive("gone", 4, 2, 64);
  fs::remove(fs::path(b).parent_path() / "traces" / "3.evt");
  refused(b, "rank 3");
}

TEST(ReplayRun, RendezvousDeadlockNamesBothRanks) {
  // Both ranks MPI_Ssend to each other first: neither receive is ever posted.
  rica::test::Otf2Writer w(tmp("deadlock"), 2);
  w.send(0, 1, 0, 64, "MPI_Ssend").recv(0, 1, 0, 64);
  w.send(1, 0, 0, 64, "MPI_Ssend").recv(1, 0, 0, 64);
  const auto topo = rica::TopologyRegistry::parse("torus:4");
  MpiReplay app(config(w.write()), topo.pes());
  const auto st = run(topo, app);
  EXPECT_FALSE(st.app_ok);
  EXPECT_TRUE(app.deadlocked());
  const auto waiting = app.waiting();
  ASSERT_EQ(waiting.size(), 2u);
  EXPECT_NE(waiting[0].find("rank 0 event"), std::string::npos) << waiting[0];
  EXPECT_NE(waiting[0].find("MPI_Ssend to rank 1"), std::string::npos) << waiting[0];
  EXPECT_NE(waiting[0].find("clear-to-send"), std::string::npos) << waiting[0];
  EXPECT_NE(waiting[1].find("rank 1 event"), std::string::npos) << waiting[1];
  // The same with MPI_Send above the eager threshold; below it, no deadlock.
  for (std::uint64_t bytes : {64u, 100000u}) {
    rica::test::Otf2Writer v(tmp("eager" + std::to_string(bytes)), 2);
    v.send(0, 1, 0, bytes).recv(0, 1, 0, bytes);
    v.send(1, 0, 0, bytes).recv(1, 0, 0, bytes);
    MpiReplay b(config(v.write()), topo.pes());
    (void)run(topo, b);
    EXPECT_EQ(b.deadlocked(), bytes > 4096) << bytes;
  }
}

TEST(ReplayRun, ComputeGapsFollowTheScale) {
  // Two ranks, one message, 1 ms of recorded compute before the send: at 1e6 cycles/s that is 1,000
  // cycles; at 0 nothing.
  // (A rank's first call has no gap before it: the trace starts there.)
  rica::test::Otf2Writer w(tmp("gap"), 2);
  w.recv(0, 1, 9, 16).send(0, 1, 0, 16, "MPI_Send", 1000000);
  w.send(1, 0, 9, 16).recv(1, 0, 0, 16, 0);
  const std::string a = w.write();
  const auto topo = rica::TopologyRegistry::parse("torus:4");
  MpiReplay zero(config(a, 0), topo.pes()), some(config(a, 1e6), topo.pes());
  (void)run(topo, zero);
  (void)run(topo, some);
  const auto m0 = zero.makespan(), m1 = some.makespan();
  EXPECT_LT(m0, 100u);
  EXPECT_GE(m1, 1000u);
  EXPECT_LE(m1, 1000u + m0 + 2);
  EXPECT_EQ(some.summary()["per_rank"][0]["compute"], 1000u);
}

TEST(ReplayRun, RingOnRingIdentityBeatsRandom) {
  const std::string a = ring_archive("ring16", 16, 4, 64);
  const auto topo = rica::TopologyRegistry::parse("torus:16");
  ReplayConfig id = config(a), rnd = config(a);
  rnd.map = "random";
  MpiReplay x(id, topo.pes()), y(rnd, topo.pes());
  const auto sx = run(topo, x), sy = run(topo, y);
  EXPECT_TRUE(sx.app_ok && sy.app_ok);
  EXPECT_DOUBLE_EQ(sx.hops_mean, 1.0);  // every ring message to the next PE: one hop
  EXPECT_GT(sy.hops_mean, 1.5);
  EXPECT_LT(x.makespan(), y.makespan());
  // embed finds the ring again (one hop per message).
  ReplayConfig em = config(a);
  em.map = "embed";
  MpiReplay z(em, topo.pes());
  const auto sz = run(topo, z);
  EXPECT_DOUBLE_EQ(sz.hops_mean, 1.0);
}

TEST(ReplayRun, IdenticalOnOneAndTwoThreads) {
  const std::string a = ring_archive("threads", 16, 6, 300);
  const auto topo = rica::TopologyRegistry::parse("torus:4x4");
  ReplayConfig c = config(a, 1e9);
  c.map = "random";
  c.eager_bytes = 100;  // rendezvous for every message
  MpiReplay one(c, topo.pes()), two(c, topo.pes());
  const auto s1 = run(topo, one, 1), s2 = run(topo, two, 2);
  EXPECT_TRUE(s1.app_ok && s2.app_ok);
  EXPECT_EQ(one.summary().dump(), two.summary().dump());
  EXPECT_EQ(s1.latency_mean, s2.latency_mean);
}

TEST(ReplayCollectives, ExpandedBySchedulesWithTheirMessageCounts) {
  // 8 ranks: a ring exchange, then an allreduce of 4 KiB and a barrier; the allreduce's messages are
  // the schedule's closed form for the algorithm chosen (given, or MPICH's rule by default).
  auto archive = [](const std::string& name) {
    rica::test::Otf2Writer w(tmp(name), 8);
    for (std::uint32_t r = 0; r < 8; ++r) {
      w.collective(r, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, 4096);
      w.collective(r, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, 0);
      w.collective(r, "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, 100, 3);
    }
    return w.write();
  };
  const std::string a = archive("coll");
  const auto topo = rica::TopologyRegistry::parse("torus:8");
  for (const std::string alg : {"ring", "recursive-doubling", ""}) {
    ReplayConfig c = config(a);
    if (!alg.empty()) c.collectives = "allreduce=" + alg;
    MpiReplay app(c, topo.pes());
    const auto st = run(topo, app);
    EXPECT_TRUE(st.app_ok) << st.app_message;
    namespace cl = rica::coll;
    cl::Spec ar;
    ar.kind = cl::Kind::allreduce;
    ar.p = 8;
    ar.bytes = 4096;
    ar.algorithm = alg.empty() ? cl::choose(ar.kind, 8, 4096) : cl::parse_algorithm(ar.kind, alg);
    cl::Spec ba;
    ba.kind = cl::Kind::barrier;
    ba.p = 8;
    ba.bytes = 0;
    ba.algorithm = cl::choose(ba.kind, 8, 0);
    cl::Spec bc;
    bc.kind = cl::Kind::bcast;
    bc.p = 8;
    bc.bytes = 100;
    bc.root = 3;
    bc.algorithm = cl::choose(bc.kind, 8, 100);
    const auto j = app.summary();
    EXPECT_EQ(j["collective_messages"], cl::message_count(ar) + cl::message_count(ba) + cl::message_count(bc)) << alg;
    EXPECT_EQ(j["p2p_messages"], 0u);
    EXPECT_EQ(j["collective_calls"]["allreduce"], 8u);
  }
  ReplayConfig bad = config(a);
  bad.collectives = "allreduce=bruck";
  EXPECT_THROW(MpiReplay(bad, topo.pes()), rica::usage_error);
  bad.collectives = "allreduse=ring";
  EXPECT_THROW(MpiReplay(bad, topo.pes()), rica::usage_error);
}

TEST(ReplayCollectives, MembersMustAgree) {
  rica::test::Otf2Writer w(tmp("disagree"), 2);
  w.collective(0, "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, 8);
  w.collective(1, "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, 0);
  try {
    MpiReplay app(config(w.write()), 4);
    FAIL();
  } catch (const rica::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("differs"), std::string::npos) << e.what();
  }
}

TEST(ReplayRun, MoreRanksThanPesIsRefused) {
  const std::string a = ring_archive("big", 8, 1, 8);
  try {
    MpiReplay app(config(a), 4);
    FAIL();
  } catch (const rica::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("8 ranks"), std::string::npos) << e.what();
  }
}

}  // namespace
