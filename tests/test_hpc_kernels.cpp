// The HPC kernels (apps/hpc: fft, cg, matmul, bfs; docs/apps.md): serial references against their
// definitions, every kernel verified on several networks (PE counts powers of two and not), both
// engines, the cycle engine identical on 1 and 2 threads, message counts equal to the closed
// forms, and bad specs refused naming the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "coll_exec.hpp"
#include "app_registry.hpp"
#include "bfs.hpp"
#include "cg.hpp"
#include "fft.hpp"
#include "matmul.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"

namespace {

using rica::node_t;
using namespace rica::hpc;

rica::RunStats run(const rica::Topology& t, rica::App& app, unsigned threads, bool cycles, std::uint64_t seed = 5) {
  rica::EngineConfig cfg;
  cfg.threads = threads;
  cfg.seed = seed;
  cfg.cycles = 1;  // closed programs: the run ends when the kernel does
  return cycles ? rica::run_cycles(t, app, cfg) : rica::run_async(t, app, cfg);
}

TEST(HpcFft, OneDimensionalTransformIsTheDft) {
  rica::Rng rng(3);
  for (std::uint32_t n = 1; n <= 64; n *= 2) {
    std::vector<cplx> a(n), in(n);
    for (auto& x : in) x = {rng.uniform() - 0.5, rng.uniform() - 0.5};
    a = in;
    fft1d(a.data(), n);
    for (std::uint32_t k = 0; k < n; ++k) {
      std::complex<long double> s = 0;
      for (std::uint32_t j = 0; j < n; ++j)
        s += std::complex<long double>(in[j].real(), in[j].imag()) *
             std::polar(1.0L, -2.0L * std::numbers::pi_v<long double> * (j * k % n) / n);
      EXPECT_NEAR(a[k].real(), static_cast<double>(s.real()), 1e-12) << "n " << n << " k " << k;
      EXPECT_NEAR(a[k].imag(), static_cast<double>(s.imag()), 1e-12) << "n " << n << " k " << k;
    }
  }
}

TEST(HpcCollExec, EveryAllreduceAndAlltoallRunsByStepsAndReplaysRight) {
  using namespace rica::coll;
  for (Kind k : {Kind::allreduce, Kind::alltoall})
    for (Algorithm a : algorithms(k))
      for (std::uint32_t p = 1; p <= 24; ++p) {
        std::vector<node_t> members(p);
        for (std::uint32_t r = 0; r < p; ++r) members[r] = r;
        const CollExec ex(spec_of(k, a, p, 8), members);  // the step checks pass
        EXPECT_EQ(ex.messages(), message_count(spec_of(k, a, p, 8)));
        std::vector<Blocks> data(p);
        std::uint64_t sum = 0;
        for (std::uint32_t r = 0; r < p; ++r) {
          if (k == Kind::allreduce) {
            data[r] = ex.scalar(r, 1000 + r * r), sum += 1000 + r * r;
          } else {
            for (std::uint32_t d = 0; d < p; ++d) data[r][r * p + d] = {std::uint64_t{r} * 1000 + d};
          }
        }
        ex.serial(data, add_words);
        for (std::uint32_t r = 0; r < p; ++r) {
          if (k == Kind::allreduce) {
            EXPECT_EQ(ex.scalar_result(data[r]), sum) << name(a) << " p " << p << " rank " << r;
          } else {
            for (std::uint32_t s = 0; s < p; ++s)
              EXPECT_EQ(data[r].at(s * p + r).at(0), std::uint64_t{s} * 1000 + r) << name(a) << " p " << p;
          }
        }
      }
}

struct Case {
  const char* topo;
  const char* app;
};

class HpcRuns : public ::testing::TestWithParam<Case> {};

TEST_P(HpcRuns, VerifiedAndIdenticalOnOneAndTwoThreads) {
  const auto& c = GetParam();
  const rica::Topology t = rica::TopologyRegistry::parse(c.topo);
  auto a1 = rica::AppRegistry::make(c.app, t), a2 = rica::AppRegistry::make(c.app, t), a3 = rica::AppRegistry::make(c.app, t);
  const rica::RunStats s1 = run(t, *a1, 1, true), s2 = run(t, *a2, 2, true);
  EXPECT_TRUE(s1.app_ok) << s1.app_message;
  EXPECT_TRUE(s1.conservation_ok);
  EXPECT_TRUE(s2.app_ok) << s2.app_message;
  EXPECT_EQ(s1.cycles_run, s2.cycles_run);
  EXPECT_EQ(s1.injected, s2.injected);
  EXPECT_EQ(s1.latency_mean, s2.latency_mean);
  EXPECT_EQ(a1->summary().dump(), a2->summary().dump());
  const auto j = a1->summary();
  if (j.contains("messages_closed_form")) EXPECT_EQ(j["messages"], j["messages_closed_form"]) << j.dump();  // bfs: data-dependent
  const rica::RunStats s3 = run(t, *a3, 2, false);  // the async engine: another timing, the same result
  EXPECT_TRUE(s3.app_ok) << s3.app_message;
}

INSTANTIATE_TEST_SUITE_P(Kernels, HpcRuns,
                         ::testing::Values(Case{"torus:4x4", "fft:dims=8x8x8"}, Case{"torus:3x5", "fft:dims=16x8"},
                                           Case{"torus:4x4", "fft:dims=8x8x8,alltoall=bruck"},
                                           Case{"torus:4x4", "fft:dims=16x16,alltoall=pairwise"},
                                           Case{"torus:4x4", "cg:m=9,iterations=4,allreduce=rabenseifner"},
                                           Case{"torus:3x5", "cg:m=9,iterations=4,allreduce=ring"},
                                           Case{"torus:3x5", "bfs:scale=6,alltoall=bruck,allreduce=binomial"},
                                           Case{"hypercube:4", "fft:dims=4x4x16,pgrid=4x4"},
                                           Case{"torus:4x4", "cg:m=12,iterations=6"},
                                           Case{"torus:3x5", "cg:m=10,iterations=6"},
                                           Case{"debruijn:4", "cg:m=7,iterations=4"},
                                           Case{"torus:4x4", "matmul:block=3"}, Case{"torus:3x5", "matmul:block=2"},
                                           Case{"cccb:n=2", "matmul:block=1"},
                                           Case{"torus:4x4", "bfs:scale=8"}, Case{"torus:3x5", "bfs:scale=7,edgefactor=4"},
                                           Case{"hypercube:4", "bfs:scale=9"}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string s = std::string(i.param.app) + "_" + i.param.topo;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

TEST(HpcCg, ResidualsFallAndStayCloseToAPlainSerialCg) {
  CgConfig c;
  c.m = 16, c.iterations = 20;
  const auto ref = cg_reference(c, 5, 4, 4), plain = cg_plain(c, 5);
  ASSERT_EQ(ref.residuals.size(), 20u);
  EXPECT_LT(ref.residuals.back(), 0.05 * ref.r0);
  for (std::size_t k = 0; k < ref.residuals.size(); ++k)
    EXPECT_NEAR(ref.residuals[k], plain.residuals[k], 1e-8 * ref.r0) << k;
}

TEST(HpcMatmul, CannonOrderEqualsThePlainProductToRounding) {
  const auto c = cannon_reference(9, 4, 3), p = plain_product(9, 12);
  for (std::size_t i = 0; i < c.size(); ++i) EXPECT_NEAR(c[i], p[i], 1e-12);
}

TEST(HpcBfs, KroneckerGraphIsSeededAndInRange) {
  const auto a = kronecker_edges(8, 4, 1), b = kronecker_edges(8, 4, 1), c = kronecker_edges(8, 4, 2);
  ASSERT_EQ(a.size(), 1024u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (const auto& [u, v] : a) EXPECT_TRUE(u < 256 && v < 256);
}

TEST(HpcBfs, VerifyRejectsAnUnfinishedSearch) {
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x4");
  Bfs app(BfsConfig{});
  rica::Machine m(t, 1);
  app.setup(m);
  std::string why;
  EXPECT_FALSE(app.verify(why));
  EXPECT_NE(why.find("ranks finished"), std::string::npos) << why;
}

TEST(HpcSpecs, BadInputIsAUsageErrorNamingTheParameter) {
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x4");
  auto expect_error = [&](const std::string& spec, const std::string& needle) {
    try {
      (void)rica::AppRegistry::make(spec, t);
      ADD_FAILURE() << spec << ": no error, expected: " << needle;
    } catch (const rica::usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("fft:dims=12x8", "power of two");
  expect_error("fft:dims=8", "NXxNY");
  expect_error("fft:dims=8x8,pgrid=32x1", "pgrid");
  expect_error("fft:dims=8x8x8x8", "NXxNY");
  expect_error("cg:m=3", "smaller than the 4x4 process grid");
  expect_error("cg:iterations=0", "iterations");
  expect_error("matmul:q=5", "q = 5 needs 25 PEs");
  expect_error("matmul:block=0", "block");
  expect_error("bfs:scale=0", "scale");
  expect_error("bfs:scale=4,root=16", "root 16");
  expect_error("bfs:scale=40", "scale");
  expect_error("fft:size=8", "size");
  expect_error("cg:allreduce=tree", "allreduce");
  expect_error("fft:alltoall=ring", "alltoall");
}

}  // namespace
