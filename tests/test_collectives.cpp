// Collective schedules (rica/collectives.hpp): message counts against the closed forms, serial
// runs on real data against the serial reference, the model against the textbook formulas, the
// MPICH default rules and the refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "rica/collectives.hpp"
#include "rica/app.hpp"
#include "rica/core.hpp"

using namespace rica;
using namespace rica::coll;

namespace {

std::vector<Spec> specs_for(std::uint32_t p) {
  std::vector<Spec> out;
  for (Kind k : kinds())
    for (Algorithm a : algorithms(k)) {
      Spec s;
      s.kind = k;
      s.algorithm = a;
      s.p = p;
      s.bytes = k == Kind::barrier ? 0 : 40;
      s.segment = 16;  // pipeline: 3 segments of 40 bytes
      if (k == Kind::bcast || k == Kind::reduce || k == Kind::gather || k == Kind::scatter) s.root = p / 3;
      out.push_back(s);
    }
  return out;
}

std::string label(const Spec& s) {
  return std::string(name(s.kind)) + "/" + std::string(name(s.algorithm)) + " p=" + std::to_string(s.p);
}

}  // namespace

TEST(Collectives, MessageCountsEqualClosedForms) {
  for (std::uint32_t p = 1; p <= 64; ++p)
    for (const Spec& s : specs_for(p)) {
      const Schedule sc = build(s);
      EXPECT_EQ(sc.messages(), message_count(s)) << label(s);
    }
}

TEST(Collectives, ClosedFormsByHand) {  // a few of docs/collectives.md's formulas, written out
  Spec s;
  s.p = 12;  // pof2 8, rem 4
  s.kind = Kind::allreduce;
  s.algorithm = Algorithm::recursive_doubling;
  EXPECT_EQ(message_count(s), 2u * 4 + 8 * 3);
  s.algorithm = Algorithm::rabenseifner;
  EXPECT_EQ(message_count(s), 2u * 4 + 2 * 8 * 3);
  s.algorithm = Algorithm::ring;
  EXPECT_EQ(message_count(s), 2u * 12 * 11);
  s.kind = Kind::alltoall;
  s.algorithm = Algorithm::bruck;
  EXPECT_EQ(message_count(s), 12u * 4);
  s.kind = Kind::bcast;
  s.algorithm = Algorithm::scatter_ring_allgather;
  s.bytes = 5;  // chunks of 1 byte: ranks 1..4 get one, 5..11 none
  EXPECT_EQ(message_count(s), 4u + 12 * 11);
}

TEST(Collectives, SerialRunsVerifyEveryKindAlgorithmAndP) {
  for (std::uint32_t p = 1; p <= 64; ++p)
    for (const Spec& s : specs_for(p)) {
      const Schedule sc = build(s);
      EXPECT_EQ(simulate(sc, ReduceOp::sum, 7 + p), "") << label(s);
    }
}

TEST(Collectives, EveryOpAndOddSizes) {
  for (std::uint32_t p : {3u, 8u, 13u})
    for (std::uint64_t bytes : {1ull, 7ull, 9ull, 1000ull})
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::band, ReduceOp::bor,
                          ReduceOp::bxor})
        for (Kind k : {Kind::allreduce, Kind::reduce, Kind::reduce_scatter, Kind::bcast})
          for (Algorithm a : algorithms(k)) {
            Spec s;
            s.kind = k;
            s.algorithm = a;
            s.p = p;
            s.bytes = bytes;
            s.segment = 4;
            const Schedule sc = build(s);
            EXPECT_EQ(simulate(sc, op, bytes), "") << label(s) << " bytes=" << bytes << " op=" << name(op);
            EXPECT_EQ(sc.messages(), message_count(s)) << label(s) << " bytes=" << bytes;
          }
}

TEST(Collectives, VVariantsWithRandomCounts) {  // seeded property test: per-rank counts, zeros included
  Rng rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    const auto p = static_cast<std::uint32_t>(2 + rng.below(20));
    for (Kind k : {Kind::gather, Kind::scatter, Kind::allgather, Kind::reduce_scatter, Kind::alltoall})
      for (Algorithm a : algorithms(k)) {
        Spec s;
        s.kind = k;
        s.algorithm = a;
        s.p = p;
        s.root = static_cast<std::uint32_t>(rng.below(p));
        if (k != Kind::gather && k != Kind::scatter) s.root = 0;
        s.counts.resize(k == Kind::alltoall ? p * p : p);
        for (auto& c : s.counts) c = rng.below(4) == 0 ? 0 : rng.below(50);
        const Schedule sc = build(s);
        EXPECT_EQ(simulate(sc, ReduceOp::bxor, trial), "") << label(s);
        EXPECT_EQ(sc.messages(), message_count(s)) << label(s);
      }
  }
}

TEST(Collectives, SimulateCatchesBrokenSchedules) {  // the checker can fail
  Spec s;
  s.kind = Kind::allreduce;
  s.algorithm = Algorithm::ring;
  s.p = 5;
  Schedule sc = build(s);
  Schedule dup = sc;  // a reduction twice: rank 0 combines its first received block again
  dup.ranks[0][1].blocks = dup.ranks[0][3].blocks;
  EXPECT_NE(simulate(dup), "");
  Schedule lost = sc;  // a send nobody receives
  lost.ranks[1].pop_back();
  EXPECT_NE(simulate(lost).find("never received"), std::string::npos) << simulate(lost);
  Schedule dead = sc;  // a receive with no send: deadlock
  dead.ranks[1].erase(dead.ranks[1].begin());
  dead.ranks[2].erase(dead.ranks[2].begin() + 1);
  EXPECT_NE(simulate(dead), "");
  Schedule copy = sc;  // combine turned into copy: a contribution lost
  for (auto& op : copy.ranks[2]) op.combine = false;
  EXPECT_NE(simulate(copy), "");
}

TEST(Collectives, ModelEqualsTextbookFormulas) {  // Thakur, Rabenseifner & Gropp 2005, p a power of two
  const double a = 100, b = 2;
  const auto c = hockney(a, b);
  for (std::uint32_t p : {2u, 4u, 8u, 16u, 32u}) {
    const double lg = std::log2(p), n = 64.0 * p;
    Spec s;
    s.p = p;
    s.bytes = static_cast<std::uint64_t>(n);
    s.kind = Kind::allreduce;
    s.algorithm = Algorithm::recursive_doubling;
    EXPECT_DOUBLE_EQ(model_time(build(s), c), lg * (a + n * b)) << p;
    s.algorithm = Algorithm::ring;
    EXPECT_DOUBLE_EQ(model_time(build(s), c), 2 * (p - 1) * (a + n / p * b)) << p;
    s.algorithm = Algorithm::rabenseifner;
    EXPECT_DOUBLE_EQ(model_time(build(s), c), 2 * lg * a + 2 * (p - 1) / double(p) * n * b) << p;
    s.kind = Kind::bcast;
    s.algorithm = Algorithm::binomial;
    EXPECT_DOUBLE_EQ(model_time(build(s), c), lg * (a + n * b)) << p;
    s.kind = Kind::allgather;
    s.bytes = 64;
    s.algorithm = Algorithm::ring;
    EXPECT_DOUBLE_EQ(model_time(build(s), c), (p - 1) * (a + 64 * b)) << p;
    s.algorithm = Algorithm::recursive_doubling;
    EXPECT_DOUBLE_EQ(model_time(build(s), c), lg * a + (p - 1) * 64 * b) << p;
    s.kind = Kind::barrier;
    s.bytes = 0;
    s.algorithm = Algorithm::dissemination;
    EXPECT_DOUBLE_EQ(model_time(build(s), c), lg * a) << p;
  }
}

TEST(Collectives, MpichDefaultRules) {
  EXPECT_EQ(choose(Kind::allreduce, 16, 2048), Algorithm::recursive_doubling);
  EXPECT_EQ(choose(Kind::allreduce, 16, 2049), Algorithm::rabenseifner);
  EXPECT_EQ(choose(Kind::bcast, 4, 1 << 20), Algorithm::binomial);
  EXPECT_EQ(choose(Kind::bcast, 16, 12287), Algorithm::binomial);
  EXPECT_EQ(choose(Kind::bcast, 16, 12288), Algorithm::scatter_allgather);
  EXPECT_EQ(choose(Kind::bcast, 12, 12288), Algorithm::scatter_ring_allgather);
  EXPECT_EQ(choose(Kind::bcast, 16, 524288), Algorithm::scatter_ring_allgather);
  EXPECT_EQ(choose(Kind::allgather, 16, 100), Algorithm::recursive_doubling);
  EXPECT_EQ(choose(Kind::allgather, 12, 100), Algorithm::bruck);
  EXPECT_EQ(choose(Kind::allgather, 12, 10000), Algorithm::ring);
  EXPECT_EQ(choose(Kind::alltoall, 8, 256), Algorithm::bruck);
  EXPECT_EQ(choose(Kind::alltoall, 4, 256), Algorithm::linear);
  EXPECT_EQ(choose(Kind::alltoall, 8, 32769), Algorithm::pairwise);
  EXPECT_EQ(choose(Kind::reduce_scatter, 8, 1000), Algorithm::recursive_halving);
  EXPECT_EQ(choose(Kind::barrier, 8, 0), Algorithm::dissemination);
  for (Kind k : kinds())
    for (std::uint32_t p : {2u, 7u, 64u})
      for (std::uint64_t b : {1ull, 3000ull, 1ull << 22}) EXPECT_TRUE(accepts(k, choose(k, p, b)));
}

TEST(Collectives, Refusals) {
  EXPECT_THROW(parse_kind("alreduce"), usage_error);
  try {
    parse_kind("alreduce");
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'allreduce'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_kind("reduce_scatter"), Kind::reduce_scatter);
  EXPECT_EQ(parse_algorithm(Kind::allreduce, "recursive_doubling"), Algorithm::recursive_doubling);
  EXPECT_THROW(parse_algorithm(Kind::allreduce, "bruck"), usage_error);
  EXPECT_THROW(parse_op("avg"), usage_error);
  Spec s;
  s.kind = Kind::bcast;
  s.algorithm = Algorithm::ring;
  EXPECT_THROW(build(s), usage_error);  // not a bcast algorithm
  s.algorithm = Algorithm::binomial;
  s.root = 2;
  EXPECT_THROW(build(s), usage_error);  // root >= p
  s.root = 0;
  s.bytes = 0;
  EXPECT_THROW(build(s), usage_error);
  s.bytes = 8;
  s.p = 0;
  EXPECT_THROW(build(s), usage_error);
  Spec g;
  g.kind = Kind::gather;
  g.algorithm = Algorithm::binomial;
  g.p = 4;
  g.counts = {1, 2, 3};
  EXPECT_THROW(build(g), usage_error);  // p entries needed
  Spec a;
  a.kind = Kind::allreduce;
  a.root = 1;
  a.p = 4;
  EXPECT_THROW(build(a), usage_error);  // allreduce has no root
}
