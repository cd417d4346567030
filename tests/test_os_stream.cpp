// The OS-policy workbench (rica/os_stream.hpp): job streams, allocators, schedulers, one stream
// run end to end with its invariants (exactly once across every switch, determinism).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "rica/os_stream.hpp"
#include "rica/registry.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

std::string swf_line(const std::string& id, const std::string& submit, const std::string& run, const std::string& pes) {
  return id + " " + submit + " 0 " + run + " " + pes + " -1 -1 " + pes + " -1 -1 1 1 1 1 1 -1 -1 -1\n";
}

std::string refusal(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)parse_swf(in, "t.swf");
  } catch (const usage_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(OsStream, SwfParsesJobsAndSkipsUnknownOnes) {
  std::istringstream in("; Version: 2.2\n;\n" + swf_line("1", "100", "50", "8") + swf_line("2", "90", "-1", "4") +
                        swf_line("3", "130", "20", "16"));
  const JobStream s = parse_swf(in, "t.swf");
  ASSERT_EQ(s.jobs.size(), 2u);  // job 2 has no run time (cancelled): skipped
  EXPECT_EQ(s.jobs[0].id, 1u);
  EXPECT_EQ(s.jobs[0].submit, 0);  // relative to the first submit
  EXPECT_EQ(s.jobs[1].submit, 30);
  EXPECT_EQ(s.jobs[1].pes, 16u);
  EXPECT_EQ(s.jobs[1].run_time, 20);
}

TEST(OsStream, SwfRefusesMalformedLinesNamingLineAndField) {
  const std::string good = swf_line("1", "0", "10", "4");
  EXPECT_EQ(refusal(good + "2 5 0 ten 4 -1 -1 4 -1 -1 1 1 1 1 1 -1 -1 -1\n").rfind("t.swf:2: field 4 (run time)", 0), 0u)
      << refusal(good + "2 5 0 ten 4 -1 -1 4 -1 -1 1 1 1 1 1 -1 -1 -1\n");
  EXPECT_EQ(refusal(good + "2 5 0 10 4\n").rfind("t.swf:2: field 6: a job line has 18 fields", 0), 0u)
      << refusal(good + "2 5 0 10 4\n");
  EXPECT_EQ(refusal("; c\n" + swf_line("1", "-7", "10", "4")).rfind("t.swf:2: field 2 (submit time)", 0), 0u)
      << refusal("; c\n" + swf_line("1", "-7", "10", "4"));
  EXPECT_EQ(refusal(swf_line("1", "0", "10", "2.5")).rfind("t.swf:1: field 5 (allocated processors)", 0), 0u)
      << refusal(swf_line("1", "0", "10", "2.5"));
  EXPECT_EQ(refusal(swf_line("x", "0", "10", "2")).rfind("t.swf:1: field 1 (job number)", 0), 0u);
  EXPECT_NE(refusal("; only comments\n").find("no job"), std::string::npos);
  for (const std::string& bad : {refusal(good + "2 5 0 ten 4 -1 -1 4 -1 -1 1 1 1 1 1 -1 -1 -1\n")})
    EXPECT_EQ(bad.find('\n'), std::string::npos) << "one line";
}

TEST(OsStream, PoissonStreamsAreSeededAndChecked) {
  const JobStream a = poisson_stream("poisson:jobs=20,rate=0.5,size=2:16,length=30,seed=3");
  const JobStream b = poisson_stream("poisson:jobs=20,rate=0.5,size=2:16,length=30,seed=3");
  const JobStream c = poisson_stream("poisson:jobs=20,rate=0.5,size=2:16,length=30,seed=4");
  ASSERT_EQ(a.jobs.size(), 20u);
  bool differs = false;
  for (std::size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(a.jobs[i].submit, b.jobs[i].submit);
    EXPECT_EQ(a.jobs[i].pes, b.jobs[i].pes);
    EXPECT_TRUE(a.jobs[i].pes == 2 || a.jobs[i].pes == 4 || a.jobs[i].pes == 8 || a.jobs[i].pes == 16);
    EXPECT_GE(a.jobs[i].run_time, 1);
    if (i) {
      EXPECT_GE(a.jobs[i].submit, a.jobs[i - 1].submit);
    }
    differs = differs || a.jobs[i].pes != c.jobs[i].pes || a.jobs[i].submit != c.jobs[i].submit;
  }
  EXPECT_TRUE(differs);
  EXPECT_THROW((void)poisson_stream("poisson:jobs=2,rate=1,size=3:8,length=1"), usage_error);  // not powers of two
  EXPECT_THROW((void)poisson_stream("poisson:jobs=2,rate=1,size=2,length=1,sise=3"), usage_error);
  EXPECT_THROW((void)poisson_stream("poisson:jobs=0,rate=1,size=2,length=1"), usage_error);
  EXPECT_THROW((void)poisson_stream("poisson:jobs=2,rate=1,length=1"), usage_error);  // size missing
  EXPECT_THROW((void)poisson_stream("poisson:jobs=1000001,rate=1,size=2,length=1"), usage_error);  // over max_jobs
}

// A stream mixes applications: a weighted draw per job (deterministic, near the weights over many
// jobs), SWF executable numbers mapped first; names checked with the nearest suggested.
TEST(OsStream, JobMixesDrawByWeightAndMapExecutables) {
  const std::vector<std::string> known = {"uniform", "sort", "stencil", "reduce"};
  const JobMix mix = parse_job_mix("sort@3;stencil:iterations=4@1", "7=reduce", known, true);
  ASSERT_EQ(mix.apps.size(), 2u);
  EXPECT_EQ(mix.apps[1].first, "stencil:iterations=4");
  std::map<std::string, int> count;
  StreamJob j;
  for (std::size_t i = 0; i < 4000; ++i) ++count[mix.choose(j, i, 5)];
  EXPECT_NEAR(count["sort"], 3000, 150);
  EXPECT_NEAR(count["stencil:iterations=4"], 1000, 150);
  EXPECT_EQ(mix.choose(j, 17, 5), mix.choose(j, 17, 5)) << "deterministic";
  j.executable = 7;
  EXPECT_EQ(mix.choose(j, 3, 5), "reduce");
  EXPECT_EQ(parse_job_mix("", "", known, false).choose(j, 0, 1), "uniform");
  auto refusal = [&](const std::string& job, const std::string& map, bool swf) -> std::string {
    try {
      (void)parse_job_mix(job, map, known, swf);
    } catch (const usage_error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refusal("sortt@1;uniform", "", true).find("did you mean 'sort'?"), std::string::npos);
  EXPECT_NE(refusal("sort@0", "", true).find("--job weight"), std::string::npos);
  EXPECT_NE(refusal("sort", "1=reduce", false).find("poisson"), std::string::npos);
  EXPECT_NE(refusal("sort", "1=reduce;1=sort", true).find("mapped twice"), std::string::npos);
  EXPECT_NE(refusal("sort", "x=reduce", true).find("--job-map"), std::string::npos);
  EXPECT_NE(refusal("sort", "1=stencl", true).find("did you mean 'stencil'?"), std::string::npos);
  // SWF field 14 is read (and checked).
  std::istringstream in(swf_line("1", "0", "10", "4") + "2 5 0 10 4 -1 -1 4 -1 -1 1 1 1 x 1 -1 -1 -1\n");
  EXPECT_THROW((void)parse_swf(in, "t.swf"), usage_error);
  std::istringstream ok("1 0 0 10 4 -1 -1 4 -1 -1 1 1 1 9 1 -1 -1 -1\n");
  EXPECT_EQ(parse_swf(ok, "t.swf").jobs[0].executable, 9);
}

// Random allocate / release sequences: no PE is ever held twice, held() adds up.
TEST(OsStream, AllocatorsNeverOverlap) {
  for (const auto& [name, spec] : std::vector<std::pair<std::string, std::string>>{
           {"buddy", "hypercube:6"}, {"buddy", "torus:8x8"}, {"buddy", "cccb:n=2"}, {"first-fit", "torus:8x8"},
           {"best-fit", "mesh:8x8"}, {"random", "cccb:n=2"}, {"compact", "torus:8x8"}, {"compact", "omega:6"}}) {
    const Topology t = TopologyRegistry::parse(spec);
    auto a = make_allocator(name, t, 7);
    Rng rng(11);
    std::vector<std::vector<node_t>> live;
    std::vector<int> owner(t.pes(), 0);
    for (int step = 0; step < 400; ++step) {
      if (!live.empty() && rng.below(3) == 0) {
        const std::size_t i = rng.below(live.size());
        for (node_t v : live[i]) owner[v] = 0;
        a->release(live[i]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      const node_t k = static_cast<node_t>(1 + rng.below(t.pes() / 4));
      auto pes = a->allocate(k);
      if (!pes) continue;
      ASSERT_EQ(pes->size(), k) << name;
      for (node_t v : *pes) {
        ASSERT_LT(v, t.pes());
        ASSERT_EQ(owner[v], 0) << name << " on " << spec << ": PE " << v << " placed twice";
        owner[v] = 1;
      }
      live.push_back(*pes);
    }
    node_t used = 0;
    for (const auto& p : live) used += static_cast<node_t>(p.size());
    EXPECT_GE(a->held(), used) << name;
    for (const auto& p : live) a->release(p);
    EXPECT_EQ(a->held(), 0u) << name << " on " << spec;
    EXPECT_EQ(a->largest_free(), t.pes()) << name << " on " << spec << ": free space whole again";
  }
}

TEST(OsStream, BuddyCoalesces) {
  const Topology t = TopologyRegistry::parse("hypercube:6");
  auto a = make_allocator("buddy", t, 1);
  auto h1 = a->allocate(32), h2 = a->allocate(32);
  ASSERT_TRUE(h1 && h2);
  EXPECT_FALSE(a->allocate(1)) << "the machine is full";
  a->release(*h1);
  EXPECT_FALSE(a->allocate(64)) << "half is still held";
  auto q = a->allocate(3);  // a block of 4 inside the freed half
  ASSERT_TRUE(q);
  EXPECT_EQ(a->held(), 36u) << "internal fragmentation: a 3-PE job holds a 4-PE block";
  a->release(*q);
  a->release(*h2);
  EXPECT_EQ(a->largest_free(), 64u);
  auto all = a->allocate(64);
  ASSERT_TRUE(all) << "the halves coalesced";
  // A topology without closed halving refuses buddy, naming the alternatives.
  try {
    (void)make_allocator("buddy", TopologyRegistry::parse("debruijn:4"), 1);
    ADD_FAILURE() << "buddy accepted de Bruijn";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("first-fit"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)make_allocator("budy", t, 1), usage_error);
}

// A job-level driver of a scheduler (no network): jobs run exactly their estimates.
struct JobLevel : SchedulerContext {
  struct J {
    J(std::uint64_t a, std::uint64_t e, node_t k) : arrival(a), est(e), size(k) {}
    std::uint64_t arrival, est;
    node_t size;
    std::uint64_t start = ~0ull, end = 0;
    node_t held = 0;
    std::vector<node_t> pes;
  };
  explicit JobLevel(const Topology& machine, const std::string& allocator = "random")
      : topo(machine), alloc(make_allocator(allocator, machine, 1)) {}
  const Topology& topo;
  std::unique_ptr<Allocator> alloc;
  std::vector<J> jobs;
  std::vector<unsigned> wait, run;
  std::uint64_t t = 0;
  node_t before = 0;
  std::uint64_t now() const override { return t; }
  node_t machine_pes() const override { return topo.pes(); }
  const std::vector<unsigned>& waiting() const override { return wait; }
  const std::vector<unsigned>& running() const override { return run; }
  node_t size(unsigned j) const override { return jobs[j].size; }
  std::uint64_t estimate(unsigned j) const override { return jobs[j].est; }
  std::uint64_t placed_at(unsigned j) const override { return jobs[j].start; }
  node_t held_by(unsigned j) const override { return jobs[j].held; }
  const std::vector<node_t>& pes_of(unsigned j) const override { return jobs[j].pes; }
  unsigned max_rows() const override { return 1; }
  Allocator& row(unsigned) override {
    before = alloc->held();
    return *alloc;
  }
  bool place(unsigned j, unsigned, const std::vector<node_t>& pes) override {
    jobs[j].start = t;
    jobs[j].end = t + jobs[j].est;
    jobs[j].pes = pes;
    jobs[j].held = alloc->held() - before;
    wait.erase(std::find(wait.begin(), wait.end(), j));
    run.push_back(j);
    return true;
  }
  void simulate(Scheduler& s) {
    for (t = 0; t < 200; ++t) {
      bool changed = false;
      for (unsigned j : std::vector<unsigned>(run))
        if (jobs[j].end == t) alloc->release(jobs[j].pes), run.erase(std::find(run.begin(), run.end(), j)), changed = true;
      for (unsigned j = 0; j < jobs.size(); ++j)
        if (jobs[j].arrival == t) wait.push_back(j), changed = true;
      if (changed) s.schedule(*this);
    }
  }
};

// The hand-worked schedule (docs/os.md): 8 PEs. A (4 PEs, 10) at 0 starts. B (6, 10) at 1 does
// not fit: its reservation is cycle 10 (A's end), with 8 - 6 = 2 extra PEs. C (4, 20) at 2 fits
// now but would end at 22 and needs more than the 2 extra PEs: it waits. D (2, 20) at 3 ends after
// the shadow but fits in the extra PEs: backfilled. E (2, 5) at 4 ends at 9, before the shadow:
// backfilled. B starts at 10, its reservation; C at 20, when B ends (D holds 2 until 23). Under
// FCFS nothing overtakes B: C, D and E all start at 20.
TEST(OsStream, EasyNeverDelaysTheHeadJobsReservation) {
  const Topology t = TopologyRegistry::parse("torus:2x4");
  JobLevel sim(t);
  sim.jobs = {{0, 10, 4}, {1, 10, 6}, {2, 20, 4}, {3, 20, 2}, {4, 5, 2}};
  auto easy = make_scheduler("easy");
  sim.simulate(*easy);
  const std::vector<std::uint64_t> expect = {0, 10, 20, 3, 4};
  for (std::size_t j = 0; j < expect.size(); ++j) EXPECT_EQ(sim.jobs[j].start, expect[j]) << "job " << char('A' + j);
  // FCFS on the same stream: nothing overtakes B.
  JobLevel fcfs_sim(t);
  fcfs_sim.jobs = {{0, 10, 4}, {1, 10, 6}, {2, 20, 4}, {3, 20, 2}, {4, 5, 2}};
  auto fcfs = make_scheduler("fcfs");
  fcfs_sim.simulate(*fcfs);
  const std::vector<std::uint64_t> fexpect = {0, 10, 20, 20, 20};
  for (std::size_t j = 0; j < fexpect.size(); ++j) EXPECT_EQ(fcfs_sim.jobs[j].start, fexpect[j]) << "job " << char('A' + j);
}

// EASY's reservation in the allocator's view (docs/os.md): buddy on 8 PEs (blocks of 8, 4, 2).
// A (2 PEs, 10), C (2, 50) and B (2, 30) arrive at 0 and start: A and C share one 4-block, B takes
// half of the other. H (4, 10) arrives at 1 and does not fit. By PE counts its reservation would
// be cycle 10 (A's end frees 2 PEs, 4 free) — but then the free PEs are A's old pair and B's
// sibling, in two 4-blocks: buddy cannot place H before B's end at 30, which frees the second
// 4-block. So the shadow is 30. D (2, 15) at 2 ends at 17, by the shadow: backfilled (counting
// PEs it would wait: past 10 and no extra PEs). E (2, 100) at 11 takes A's old pair and runs past
// 30, but the second 4-block is still free then: backfilled. G (2, 100) at 18 would take B's
// sibling (D ended at 17) and keep it past 30, breaking H's block: it waits. H starts at 30, its
// reservation; G at 40, when H ends.
TEST(OsStream, EasyReservesInTheAllocatorsView) {
  const Topology t = TopologyRegistry::parse("hypercube:3");
  JobLevel sim(t, "buddy");
  sim.jobs = {{0, 10, 2}, {0, 50, 2}, {0, 30, 2}, {1, 10, 4}, {2, 15, 2}, {11, 100, 2}, {18, 100, 2}};
  auto easy = make_scheduler("easy");
  sim.simulate(*easy);
  const std::vector<std::uint64_t> expect = {0, 0, 0, 30, 2, 11, 40};
  const char* name[] = {"A", "C", "B", "H", "D", "E", "G"};
  for (std::size_t j = 0; j < expect.size(); ++j) EXPECT_EQ(sim.jobs[j].start, expect[j]) << "job " << name[j];
}

EngineConfig stream_config(unsigned threads) {
  EngineConfig cfg;
  cfg.threads = threads;
  cfg.seed = 9;
  cfg.cycles = 1u << 30;
  cfg.link_cycles = 1;
  cfg.buffer_words = 8;
  return cfg;
}

JobAppFactory uniform_jobs(double rate) {
  return [rate](const StreamJob& job, std::uint64_t packets) {
    TrafficOptions opt;
    opt.rate = rate;
    opt.packets = packets;
    opt.seed = job.id;
    return TrafficRegistry::make("uniform", traffic::PeSpace::of_shape({job.pes}), opt);
  };
}

void expect_clean(const StreamStats& s) {
  EXPECT_FALSE(s.machine.deadlock) << s.machine.deadlock_report;
  EXPECT_TRUE(s.machine.conservation_ok);
  EXPECT_EQ(s.machine.lost, 0u);
  EXPECT_EQ(s.machine.duplicates, 0u);
  EXPECT_EQ(s.machine.in_network, 0u);
  EXPECT_EQ(s.misdelivered, 0u);
  EXPECT_TRUE(s.ok);
  for (const StreamJobResult& j : s.jobs) {
    EXPECT_TRUE(j.figures.ok) << j.figures.name << ": " << j.figures.message;
    EXPECT_GT(j.end, 0u);
    EXPECT_GE(j.start, j.arrival);
    EXPECT_GE(j.end, j.start);
    EXPECT_GE(j.bounded_slowdown, 1.0);
  }
}

// One job alone on the whole machine: its figures are those of a plain run of the same traffic.
TEST(OsStream, OneJobEqualsAPlainRun) {
  const Topology t = TopologyRegistry::parse("torus:8x8");
  JobStream s;
  s.jobs = {{1, 0, 10, 0, t.pes(), -1, ""}};
  StreamConfig sc;
  sc.allocator = "first-fit";
  sc.scheduler = "fcfs";
  sc.cycles_per_second = 100;
  sc.rate = 0.1;
  const StreamStats st = run_stream(t, s, uniform_jobs(0.1), stream_config(1), sc);
  expect_clean(st);
  auto app = uniform_jobs(0.1)(s.jobs[0], 100);  // 10 s x 100 cycles/s x 0.1 = 100 packets per PE
  const RunStats plain = run(t, *app, [] {
    EngineConfig c = stream_config(1);
    c.engine = EngineKind::cycle;
    return c;
  }());
  EXPECT_EQ(st.jobs[0].figures.delivered, plain.delivered);
  EXPECT_EQ(st.machine.hops, plain.hops);
  EXPECT_DOUBLE_EQ(st.jobs[0].figures.latency_mean, plain.latency_mean);
  EXPECT_EQ(st.jobs[0].figures.latency_max, plain.latency_max);
  EXPECT_EQ(st.jobs[0].wait, 0);
  EXPECT_EQ(st.machine.cycles_run, plain.cycles_run);
  EXPECT_EQ(st.jobs[0].end + 1, plain.cycles_run) << "its last cycle is the plain run's last";
}

// A long stream under gang scheduling: hundreds of switches, every packet of every job delivered
// exactly once, for each switch policy; space sharing under EASY on an open placement too.
TEST(OsStream, ExactlyOnceAcrossEverySwitchOfALongStream) {
  const Topology t = TopologyRegistry::parse("cccb:n=2");  // 2 x 4 x 4 = 32 PEs
  const JobStream s = poisson_stream("poisson:jobs=40,rate=0.5,size=4:16,length=8,seed=5");
  for (const char* policy : {"drain", "flush", "drain-pe"}) {
    StreamConfig sc;
    sc.allocator = "buddy";
    sc.scheduler = "gang";
    sc.rows = 3;
    sc.os.slice = 60;
    sc.os.policy = policy_by_name(policy);
    sc.cycles_per_second = 20;
    sc.rate = 0.3;
    const StreamStats st = run_stream(t, s, uniform_jobs(0.3), stream_config(2), sc);
    expect_clean(st);
    EXPECT_GE(st.switches.size(), 50u) << policy;
    std::uint64_t saved = 0, restored = 0;
    for (const SwitchRecord& r : st.switches) saved += r.packets_saved, restored += r.packets_restored;
    if (std::string(policy) != "flush") {
      EXPECT_GT(saved, 0u) << policy << ": switches under load save packets";
    }
    EXPECT_EQ(saved, restored) << policy << ": every saved packet restored";
    for (const StreamJobResult& j : st.jobs)
      EXPECT_EQ(j.figures.delivered, std::uint64_t{j.job.pes} * std::max<std::uint64_t>(1, std::llround(static_cast<double>(j.work) * 0.3)));
  }
  StreamConfig sc;
  sc.allocator = "random";
  sc.scheduler = "easy";
  sc.cycles_per_second = 20;
  sc.rate = 0.3;
  sc.alone = true;
  const StreamStats st = run_stream(t, s, uniform_jobs(0.3), stream_config(2), sc);
  expect_clean(st);
  EXPECT_TRUE(st.switches.empty());
  for (const StreamJobResult& j : st.jobs) EXPECT_GT(j.latency_alone, 0) << "each job re-run alone on its placement";
  std::uint64_t foreign = 0;
  for (const StreamJobResult& j : st.jobs) foreign += j.figures.foreign_link_packets;
  EXPECT_GT(foreign, 0u) << "random placement: jobs' packets cross other jobs' PEs";
}

// Job ids are recycled: a stream runs under at most StreamConfig::job_ids ids at once, an id
// given back when its job has finished, its figures folded into the job's own record. Forcing
// the fewest ids the stream needs changes nothing (the same JSON as with 255 ids, for gang with
// drain and flush switches and for EASY); one id fewer is the one-line refusal.
TEST(OsStream, RecycledJobIdsChangeNothing) {
  const Topology t = TopologyRegistry::parse("cccb:n=2");
  const JobStream s = poisson_stream("poisson:jobs=40,rate=0.5,size=4:16,length=8,seed=5");
  for (const char* sched : {"gang", "easy"})
    for (const char* policy : {"drain", "flush"}) {
      if (std::string(sched) == "easy" && std::string(policy) == "flush") continue;
      StreamConfig sc;
      sc.allocator = "buddy";
      sc.scheduler = sched;
      sc.rows = 3;
      sc.os.slice = 60;
      sc.os.policy = policy_by_name(policy);
      sc.cycles_per_second = 20;
      sc.rate = 0.3;
      const StreamStats wide = run_stream(t, s, uniform_jobs(0.3), stream_config(2), sc);
      expect_clean(wide);
      ASSERT_LT(wide.peak_resident, s.jobs.size()) << "the case must recycle";
      sc.job_ids = static_cast<unsigned>(wide.peak_resident);
      const StreamStats tight = run_stream(t, s, uniform_jobs(0.3), stream_config(2), sc);
      expect_clean(tight);
      EXPECT_EQ(wide.to_json().dump(), tight.to_json().dump()) << sched << " " << policy;
      sc.job_ids = static_cast<unsigned>(wide.peak_resident - 1);
      try {
        (void)run_stream(t, s, uniform_jobs(0.3), stream_config(2), sc);
        ADD_FAILURE() << "more resident jobs than ids accepted";
      } catch (const usage_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("resident at once"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << "one line";
      }
    }
}

// A 1,000-job stream (more than the 255 ids a packet can name) runs to the end with every packet
// of every job delivered exactly once, each job's deliveries in its own record.
TEST(OsStream, ThousandJobStreamDeliversEveryPacketOnce) {
  const Topology t = TopologyRegistry::parse("torus:8x8");
  const JobStream s = poisson_stream("poisson:jobs=1000,rate=4,size=2:16,length=2,seed=7");
  StreamConfig sc;
  sc.allocator = "buddy";
  sc.scheduler = "gang";
  sc.rows = 2;
  sc.os.slice = 40;
  sc.cycles_per_second = 10;
  sc.rate = 0.3;
  std::size_t calls = 0, last = 0;
  sc.on_job_done = [&](std::size_t done, std::size_t total) {
    EXPECT_GT(done, last);
    EXPECT_EQ(total, 1000u);
    last = done, ++calls;
  };
  const StreamStats st = run_stream(t, s, uniform_jobs(0.3), stream_config(2), sc);
  expect_clean(st);
  EXPECT_EQ(last, 1000u);
  EXPECT_GT(calls, 1u);
  EXPECT_GT(st.switches.size(), 10u);
  EXPECT_LE(st.peak_resident, 255u);
  std::uint64_t delivered = 0;
  for (const StreamJobResult& j : st.jobs) {
    const std::uint64_t want = std::uint64_t{j.job.pes} * std::max<std::uint64_t>(1, std::llround(static_cast<double>(j.work) * 0.3));
    EXPECT_EQ(j.figures.delivered, want) << j.figures.name;
    delivered += j.figures.delivered;
  }
  EXPECT_EQ(delivered, st.machine.delivered);
}

// The topology-aware allocator keeps each job's PEs near each other: the same stream travels
// fewer packet-hops than under random placement.
TEST(OsStream, CompactPlacementShortensPaths) {
  const Topology t = TopologyRegistry::parse("torus:16x16");
  const JobStream s = poisson_stream("poisson:jobs=12,rate=1,size=16:64,length=4,seed=3");
  std::map<std::string, std::uint64_t> hops;
  for (const char* alloc : {"compact", "random"}) {
    StreamConfig sc;
    sc.allocator = alloc;
    sc.scheduler = "easy";
    sc.cycles_per_second = 20;
    sc.rate = 0.1;
    const StreamStats st = run_stream(t, s, uniform_jobs(0.1), stream_config(2), sc);
    expect_clean(st);
    hops[alloc] = st.machine.hops;
  }
  EXPECT_LT(hops["compact"] * 3, hops["random"] * 2) << hops["compact"] << " vs " << hops["random"];
}

TEST(OsStream, IdenticalForOneAndTwoThreads) {
  const Topology t = TopologyRegistry::parse("torus:8x8");
  const JobStream s = poisson_stream("poisson:jobs=16,rate=1,size=4:32,length=5,seed=2");
  for (const char* sched : {"easy", "gang"}) {
    StreamConfig sc;
    sc.allocator = "buddy";
    sc.scheduler = sched;
    sc.os.slice = 50;
    sc.cycles_per_second = 30;
    sc.rate = 0.2;
    const std::string a = run_stream(t, s, uniform_jobs(0.2), stream_config(1), sc).to_json().dump();
    const std::string b = run_stream(t, s, uniform_jobs(0.2), stream_config(2), sc).to_json().dump();
    EXPECT_EQ(a, b) << sched;
  }
}

TEST(OsStream, BadConfigurationsAreUsageErrors) {
  const Topology t = TopologyRegistry::parse("torus:4x4");
  JobStream s;
  s.jobs = {{1, 0, 10, 0, 32, -1, ""}};
  StreamConfig sc;
  sc.allocator = "first-fit";
  EXPECT_THROW((void)run_stream(t, s, uniform_jobs(0.1), stream_config(1), sc), usage_error);  // 32 PEs > 16
  s.jobs[0].pes = 4;
  sc.scheduler = "gang";
  sc.allocator = "random";
  EXPECT_THROW((void)run_stream(t, s, uniform_jobs(0.1), stream_config(1), sc), usage_error);  // open + time sharing
  sc.allocator = "first-fit";
  sc.scheduler = "fifo";
  EXPECT_THROW((void)run_stream(t, s, uniform_jobs(0.1), stream_config(1), sc), usage_error);
  EXPECT_THROW((void)job_stream("/nonexistent/x.swf"), usage_error);
}

// User code registers an allocator and a scheduler by name, no edit of rica.
TEST(OsStream, AllocatorsAndSchedulersRegisterFromUserCode) {
  struct Lifo final : Scheduler {
    void schedule(SchedulerContext& ctx) override {
      while (!ctx.waiting().empty()) {
        const unsigned j = ctx.waiting().back();
        auto pes = ctx.row(0).allocate(ctx.size(j));
        if (!pes) return;
        ctx.place(j, 0, *pes);
      }
    }
  };
  static SchedulerRegistration reg{"test-lifo", "last come, first served", [] { return std::make_unique<Lifo>(); }};
  bool listed = false;
  for (const auto& [name, doc] : schedulers()) listed = listed || name == "test-lifo";
  EXPECT_TRUE(listed);
  const Topology t = TopologyRegistry::parse("torus:4x4");
  const JobStream s = poisson_stream("poisson:jobs=6,rate=2,size=8:16,length=3,seed=1");
  StreamConfig sc;
  sc.allocator = "best-fit";
  sc.scheduler = "test-lifo";
  sc.cycles_per_second = 20;
  expect_clean(run_stream(t, s, uniform_jobs(0.1), stream_config(1), sc));
  EXPECT_THROW(register_scheduler("test-lifo", "again", [] { return std::make_unique<Lifo>(); }), usage_error);
}

}  // namespace
}  // namespace rica
