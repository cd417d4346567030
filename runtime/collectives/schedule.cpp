// Collective schedules (rica/collectives.hpp): one generator per algorithm, each written per rank
// as MPICH's code is (src/mpi/coll/<kind>/<kind>_intra_<algorithm>.c), so that a rank's op list
// is what that rank's MPICH code would post, in order.
#include "rica/collectives.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "rica/core.hpp"
#include "rica/suggest.hpp"

namespace rica::coll {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr std::array<std::string_view, 9> kind_names = {"allreduce", "bcast",    "reduce",         "gather", "scatter",
                                                        "allgather", "alltoall", "reduce-scatter", "barrier"};
constexpr std::array<std::string_view, 13> algorithm_names = {
    "ring",     "recursive-doubling", "rabenseifner", "binomial", "scatter-allgather", "scatter-ring-allgather",
    "pipeline", "bruck",              "pairwise",     "linear",   "recursive-halving", "dissemination",
    "tree"};
constexpr std::array<std::string_view, 7> op_names = {"sum", "prod", "max", "min", "band", "bor", "bxor"};

u32 floor_pof2(u32 p) {
  u32 x = 1;
  while (x <= p / 2) x <<= 1;
  return x;
}
u32 log2_floor(u32 p) {
  u32 k = 0;
  while ((u64{1} << (k + 1)) <= p) ++k;
  return k;
}
u32 log2_ceil(u32 p) {
  u32 k = 0;
  while ((u64{1} << k) < p) ++k;
  return k;
}
bool is_pof2(u32 p) { return (p & (p - 1)) == 0; }

std::string canonical(std::string_view t) {
  std::string s(t);
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

/// Splits n bytes into k blocks, the first n % k one byte longer (MPICH's count splits).
std::vector<u64> split(u64 n, u32 k) {
  std::vector<u64> v(k, n / k);
  for (u32 i = 0; i < n % k; ++i) ++v[i];
  return v;
}

// The builder: per-rank op lists over a block space.
struct Builder {
  Schedule& s;
  void send(u32 r, u32 peer, u32 step, std::vector<u32> blocks) { add(r, Op::Type::send, false, peer, step, std::move(blocks)); }
  void recv(u32 r, u32 peer, u32 step, std::vector<u32> blocks, bool combine) {
    add(r, Op::Type::recv, combine, peer, step, std::move(blocks));
  }
  void add(u32 r, Op::Type t, bool combine, u32 peer, u32 step, std::vector<u32> blocks) {
    Op op;
    op.type = t;
    op.combine = combine;
    op.peer = peer;
    op.step = step;
    for (u32 b : blocks) op.bytes += s.block_bytes[b];
    op.blocks = std::move(blocks);
    s.ranks[r].push_back(std::move(op));
    s.steps = std::max(s.steps, step + 1);
  }
};

std::vector<u32> range(u32 lo, u32 hi) {  // [lo, hi)
  std::vector<u32> v;
  for (u32 i = lo; i < hi; ++i) v.push_back(i);
  return v;
}
std::vector<u32> all_blocks(const Schedule& s) { return range(0, static_cast<u32>(s.block_bytes.size())); }

// ---- Non-power-of-two folding (MPICH's allreduce/reduce-scatter pre and post steps) ----------
// The first 2*rem ranks pair up: even rank r gives its data to r+1 and sits out; the pof2 ranks
// left are renumbered newrank = r/2 (odd r < 2 rem) or r - rem.
struct Fold {
  u32 p, pof2, rem;
  explicit Fold(u32 p_) : p(p_), pof2(floor_pof2(p_)), rem(p_ - floor_pof2(p_)) {}
  long newrank(u32 r) const { return r < 2 * rem ? (r % 2 ? static_cast<long>(r / 2) : -1) : static_cast<long>(r - rem); }
  u32 real(u32 nr) const { return nr < rem ? 2 * nr + 1 : nr + rem; }
};

// ---- Binomial trees over relative ranks (MPICH's bcast, reduce, gather, scatter) -------------
u32 rel(u32 r, u32 root, u32 p) { return (r + p - root) % p; }
u32 absr(u32 rr, u32 root, u32 p) { return (rr + root) % p; }

/// Binomial reduce of `blocks` to root (MPICH reduce_intra_binomial, commutative op).
void binomial_reduce(Builder& b, u32 p, u32 root, const std::vector<u32>& blocks, u32 step0) {
  for (u32 r = 0; r < p; ++r) {
    const u32 rr = rel(r, root, p);
    u32 mask = 1, step = step0;
    while (mask < p) {
      if ((mask & rr) == 0) {
        const u32 src = rr | mask;
        if (src < p) b.recv(r, absr(src, root, p), step, blocks, true);
      } else {
        b.send(r, absr(rr & ~mask, root, p), step, blocks);
        break;
      }
      mask <<= 1;
      ++step;
    }
  }
}

/// Binomial bcast of `blocks` from root (MPICH bcast_intra_binomial).
void binomial_bcast(Builder& b, u32 p, u32 root, const std::vector<u32>& blocks, u32 step0) {
  const u32 lg = log2_ceil(p);
  for (u32 r = 0; r < p; ++r) {
    const u32 rr = rel(r, root, p);
    u32 mask = 1, k = 0;
    while (mask < p) {
      if (rr & mask) {
        b.recv(r, absr(rr - mask, root, p), step0 + lg - 1 - k, blocks, false);
        break;
      }
      mask <<= 1;
      ++k;
    }
    mask >>= 1;
    // Larger subtrees first: the child rr + m (lowest set bit m) receives in round lg - 1 - log2(m).
    while (mask > 0) {
      if (rr + mask < p) b.send(r, absr(rr + mask, root, p), step0 + lg - 1 - log2_floor(mask), blocks);
      mask >>= 1;
    }
  }
}

/// Binomial gather (MPICH gather_intra_binomial): block of relative rank j is block id
/// absr(j) (each rank's own block).
void binomial_gather(Builder& b, u32 p, u32 root, u32 step0) {
  auto blocks_of = [&](u32 lo, u32 hi) {
    std::vector<u32> v;
    for (u32 j = lo; j < std::min(hi, p); ++j) v.push_back(absr(j, root, p));
    return v;
  };
  for (u32 r = 0; r < p; ++r) {
    const u32 rr = rel(r, root, p);
    u32 mask = 1, step = step0;
    while (mask < p) {
      if ((mask & rr) == 0) {
        const u32 src = rr | mask;
        if (src < p) b.recv(r, absr(src, root, p), step, blocks_of(src, src + mask), false);
      } else {
        b.send(r, absr(rr ^ mask, root, p), step, blocks_of(rr, rr + mask));
        break;
      }
      mask <<= 1;
      ++step;
    }
  }
}

/// Binomial scatter (MPICH scatter_intra_binomial).
void binomial_scatter(Builder& b, u32 p, u32 root, u32 step0) {
  const u32 top = log2_ceil(p);
  auto blocks_of = [&](u32 lo, u32 hi) {
    std::vector<u32> v;
    for (u32 j = lo; j < std::min(hi, p); ++j) v.push_back(absr(j, root, p));
    return v;
  };
  for (u32 r = 0; r < p; ++r) {
    const u32 rr = rel(r, root, p);
    u32 mask = 1, k = 0;
    while (mask < p) {
      if (rr & mask) {
        b.recv(r, absr(rr - mask, root, p), step0 + top - 1 - k, blocks_of(rr, rr + mask), false);
        break;
      }
      mask <<= 1;
      ++k;
    }
    mask >>= 1;
    while (mask > 0) {
      if (rr + mask < p)
        b.send(r, absr(rr + mask, root, p), step0 + (top - 1 - log2_floor(mask)), blocks_of(rr + mask, rr + 2 * mask));
      mask >>= 1;
    }
  }
}

// ---- allreduce ----------------------------------------------------------------------------------

void allreduce_recursive_doubling(Builder& b, u32 p) {
  const Fold f(p);
  const auto all = all_blocks(b.s);
  const u32 pre = f.rem ? 1 : 0;
  for (u32 r = 0; r < p; ++r) {
    if (r < 2 * f.rem) {
      if (r % 2 == 0) {
        b.send(r, r + 1, 0, all);
      } else {
        b.recv(r, r - 1, 0, all, true);
      }
    }
    const long nr = f.newrank(r);
    if (nr >= 0) {
      u32 step = pre;
      for (u32 mask = 1; mask < f.pof2; mask <<= 1, ++step) {
        const u32 dst = f.real(static_cast<u32>(nr) ^ mask);
        b.send(r, dst, step, all);
        b.recv(r, dst, step, all, true);
      }
    }
    if (r < 2 * f.rem) {
      const u32 post = pre + log2_floor(f.pof2);
      if (r % 2)
        b.send(r, r - 1, post, all);
      else
        b.recv(r, r + 1, post, all, false);
    }
  }
}

void allreduce_rabenseifner(Builder& b, u32 p) {
  const Fold f(p);
  const auto all = all_blocks(b.s);  // pof2 blocks
  const u32 pre = f.rem ? 1 : 0, lg = log2_floor(f.pof2);
  for (u32 r = 0; r < p; ++r) {
    if (r < 2 * f.rem) {
      if (r % 2 == 0)
        b.send(r, r + 1, 0, all);
      else
        b.recv(r, r - 1, 0, all, true);
    }
    const long nrl = f.newrank(r);
    if (nrl >= 0) {
      const u32 nr = static_cast<u32>(nrl), pof2 = f.pof2;
      // Reduce-scatter by recursive halving (MPICH allreduce_intra_reduce_scatter_allgather).
      u32 mask = 1, send_idx = 0, recv_idx = 0, last_idx = pof2, step = pre;
      while (mask < pof2) {
        const u32 newdst = nr ^ mask, dst = f.real(newdst);
        std::vector<u32> sb, rb;
        if (nr < newdst) {
          send_idx = recv_idx + pof2 / (mask * 2);
          sb = range(send_idx, last_idx);
          rb = range(recv_idx, send_idx);
        } else {
          recv_idx = send_idx + pof2 / (mask * 2);
          sb = range(send_idx, recv_idx);
          rb = range(recv_idx, last_idx);
        }
        b.send(r, dst, step, sb);
        b.recv(r, dst, step, rb, true);
        send_idx = recv_idx;
        mask <<= 1;
        ++step;
        if (mask < pof2) last_idx = recv_idx + pof2 / mask;
      }
      // Allgather by recursive doubling, the halving's steps reversed.
      mask >>= 1;
      while (mask > 0) {
        const u32 newdst = nr ^ mask, dst = f.real(newdst);
        std::vector<u32> sb, rb;
        if (nr < newdst) {
          if (mask != pof2 / 2) last_idx = last_idx + pof2 / (mask * 2);
          recv_idx = send_idx + pof2 / (mask * 2);
          sb = range(send_idx, recv_idx);
          rb = range(recv_idx, last_idx);
        } else {
          recv_idx = send_idx - pof2 / (mask * 2);
          sb = range(send_idx, last_idx);
          rb = range(recv_idx, send_idx);
        }
        b.send(r, dst, step, sb);
        b.recv(r, dst, step, rb, false);
        if (nr > newdst) send_idx = recv_idx;
        mask >>= 1;
        ++step;
      }
    }
    if (r < 2 * f.rem) {
      const u32 post = pre + 2 * lg;
      if (r % 2)
        b.send(r, r - 1, post, all);
      else
        b.recv(r, r + 1, post, all, false);
    }
  }
}

void allreduce_ring(Builder& b, u32 p) {  // p blocks (MPICH allreduce_intra_ring)
  for (u32 r = 0; r < p; ++r) {
    const u32 right = (r + 1) % p, left = (r + p - 1) % p;
    for (u32 i = 0; i + 1 < p; ++i) {
      b.send(r, right, i, {(r + p - i) % p});
      b.recv(r, left, i, {(r + 2 * p - i - 1) % p}, true);
    }
    for (u32 i = 0; i + 1 < p; ++i) {
      b.send(r, right, p - 1 + i, {(r + 1 + p - i) % p});
      b.recv(r, left, p - 1 + i, {(r + p - i) % p}, false);
    }
  }
}

// ---- bcast ----------------------------------------------------------------------------------------

/// Scatter for bcast (MPICH scatter_for_bcast): chunk j (relative rank j's, block id j) of
/// ceil(n/p) bytes; a message whose chunks are all empty is not sent.
void bcast_scatter(Builder& b, u32 p, u32 root) {
  auto nonempty = [&](u32 j) { return j < p && b.s.block_bytes[j] > 0; };
  const u32 top = log2_ceil(p);
  for (u32 r = 0; r < p; ++r) {
    const u32 rr = rel(r, root, p);
    u32 mask = 1, k = 0;
    while (mask < p) {
      if (rr & mask) {
        if (nonempty(rr)) b.recv(r, absr(rr - mask, root, p), top - 1 - k, range(rr, std::min(rr + mask, p)), false);
        break;
      }
      mask <<= 1;
      ++k;
    }
    mask >>= 1;
    while (mask > 0) {
      if (rr + mask < p && nonempty(rr + mask))
        b.send(r, absr(rr + mask, root, p), top - 1 - log2_floor(mask), range(rr + mask, std::min(rr + 2 * mask, p)));
      mask >>= 1;
    }
  }
}

void bcast_scatter_allgather(Builder& b, u32 p, u32 root, bool ring) {
  bcast_scatter(b, p, root);
  const u32 s0 = log2_ceil(p);
  if (!ring) {  // recursive doubling (p a power of two; MPICH bcast_intra_scatter_recursive_doubling_allgather)
    for (u32 r = 0; r < p; ++r) {
      const u32 rr = rel(r, root, p);
      for (u32 mask = 1, i = 0; mask < p; mask <<= 1, ++i) {
        const u32 rdst = rr ^ mask;
        const u32 dst_root = rdst >> i << i, my_root = rr >> i << i;
        b.send(r, absr(rdst, root, p), s0 + i, range(my_root, my_root + mask));
        b.recv(r, absr(rdst, root, p), s0 + i, range(dst_root, dst_root + mask), false);
      }
    }
  } else {  // ring (MPICH bcast_intra_scatter_ring_allgather)
    for (u32 r = 0; r < p; ++r) {
      const u32 left = (r + p - 1) % p, right = (r + 1) % p;
      u32 j = r, jnext = left;
      for (u32 i = 1; i < p; ++i) {
        b.send(r, right, s0 + i - 1, {rel(j, root, p)});
        b.recv(r, left, s0 + i - 1, {rel(jnext, root, p)}, false);
        j = jnext;
        jnext = (jnext + p - 1) % p;
      }
    }
  }
}

void bcast_pipeline(Builder& b, u32 p, u32 root) {
  const u32 segs = static_cast<u32>(b.s.block_bytes.size());
  for (u32 r = 0; r < p; ++r) {
    const u32 rr = rel(r, root, p);
    for (u32 sg = 0; sg < segs; ++sg) {
      if (rr > 0) b.recv(r, absr(rr - 1, root, p), sg + rr - 1, {sg}, false);
      if (rr + 1 < p) b.send(r, absr(rr + 1, root, p), sg + rr, {sg});
    }
  }
}

// ---- allgather ------------------------------------------------------------------------------------

void allgather_ring(Builder& b, u32 p) {
  for (u32 r = 0; r < p; ++r)
    for (u32 i = 0; i + 1 < p; ++i) {
      b.send(r, (r + 1) % p, i, {(r + p - i) % p});
      b.recv(r, (r + p - 1) % p, i, {(r + 2 * p - i - 1) % p}, false);
    }
}

/// Recursive doubling (MPICH allgather_intra_recursive_doubling for a power of two). For other
/// p the remainder is folded as MPICH's allreduce does (MPICH's default never picks recursive
/// doubling then): even r < 2 rem hands its block to r + 1 and gets the whole result back.
void allgather_recursive_doubling(Builder& b, u32 p) {
  const Fold f(p);
  const u32 pre = f.rem ? 1 : 0;
  auto group = [&](u32 nlo, u32 nhi, std::vector<u32>& out) {  // blocks of newranks [nlo, nhi)
    for (u32 n = nlo; n < nhi; ++n) {
      if (n < f.rem) {
        out.push_back(2 * n);
        out.push_back(2 * n + 1);
      } else {
        out.push_back(n + f.rem);
      }
    }
  };
  for (u32 r = 0; r < p; ++r) {
    if (r < 2 * f.rem) {
      if (r % 2 == 0)
        b.send(r, r + 1, 0, {r});
      else
        b.recv(r, r - 1, 0, {r - 1}, false);
    }
    const long nrl = f.newrank(r);
    if (nrl >= 0) {
      const u32 nr = static_cast<u32>(nrl);
      u32 step = pre, i = 0;
      for (u32 mask = 1; mask < f.pof2; mask <<= 1, ++i, ++step) {
        const u32 ndst = nr ^ mask;
        const u32 dst_root = ndst >> i << i, my_root = nr >> i << i;
        std::vector<u32> sb, rb;
        group(my_root, my_root + mask, sb);
        group(dst_root, dst_root + mask, rb);
        b.send(r, f.real(ndst), step, sb);
        b.recv(r, f.real(ndst), step, rb, false);
      }
    }
    if (r < 2 * f.rem) {
      const u32 post = pre + log2_floor(f.pof2);
      std::vector<u32> others;
      for (u32 j = 0; j < p; ++j)
        if (j != r - (r % 2 ? 1 : 0)) others.push_back(j);
      if (r % 2)
        b.send(r, r - 1, post, others);
      else
        b.recv(r, r + 1, post, others, false);
    }
  }
}

void allgather_bruck(Builder& b, u32 p) {  // MPICH allgather_intra_brucks
  for (u32 r = 0; r < p; ++r) {
    u32 pof2 = 1, step = 0;
    auto run = [&](u32 lo, u32 n) {
      std::vector<u32> v;
      for (u32 j = 0; j < n; ++j) v.push_back((r + lo + j) % p);
      return v;
    };
    while (pof2 <= p / 2) {
      b.send(r, (r + p - pof2) % p, step, run(0, pof2));
      b.recv(r, (r + pof2) % p, step, run(pof2, pof2), false);
      pof2 *= 2;
      ++step;
    }
    const u32 rem = p - pof2;
    if (rem) {
      b.send(r, (r + p - pof2) % p, step, run(0, rem));
      b.recv(r, (r + pof2) % p, step, run(pof2, rem), false);
    }
  }
}

// ---- alltoall: block id src * p + dst -----------------------------------------------------------

void alltoall_pairwise(Builder& b, u32 p) {  // MPICH alltoall_intra_pairwise
  for (u32 r = 0; r < p; ++r)
    for (u32 i = 1; i < p; ++i) {
      u32 src, dst;
      if (is_pof2(p)) {
        src = dst = r ^ i;
      } else {
        src = (r + p - i) % p;
        dst = (r + i) % p;
      }
      b.send(r, dst, i - 1, {r * p + dst});
      b.recv(r, src, i - 1, {src * p + r}, false);
    }
}

void alltoall_linear(Builder& b, u32 p) {  // MPICH alltoall_intra_scattered: all posted at once
  for (u32 r = 0; r < p; ++r) {
    for (u32 i = 1; i < p; ++i) {
      const u32 dst = (r + p - i) % p;
      b.send(r, dst, 0, {r * p + dst});
    }
    for (u32 i = 1; i < p; ++i) {
      const u32 src = (r + i) % p;
      b.recv(r, src, 0, {src * p + r}, false);
    }
  }
}

void alltoall_bruck(Builder& b, u32 p) {  // MPICH alltoall_intra_brucks
  // pos[r][j]: the block at rank r's position j (initially its block for rank r + j).
  std::vector<std::vector<u32>> pos(p, std::vector<u32>(p));
  for (u32 r = 0; r < p; ++r)
    for (u32 j = 0; j < p; ++j) pos[r][j] = r * p + (r + j) % p;
  u32 step = 0;
  for (u32 pof2 = 1; pof2 < p; pof2 *= 2, ++step) {
    std::vector<u32> sel;
    for (u32 j = 0; j < p; ++j)
      if (j & pof2) sel.push_back(j);
    auto next = pos;
    for (u32 r = 0; r < p; ++r) {
      const u32 dst = (r + pof2) % p, src = (r + p - pof2) % p;
      std::vector<u32> sb, rb;
      for (u32 j : sel) {
        sb.push_back(pos[r][j]);
        rb.push_back(pos[src][j]);
        next[r][j] = pos[src][j];
      }
      b.send(r, dst, step, sb);
      b.recv(r, src, step, rb, false);
    }
    pos = std::move(next);
  }
}

// ---- reduce-scatter: block i is rank i's result ---------------------------------------------------

void reduce_scatter_ring(Builder& b, u32 p) {
  for (u32 r = 0; r < p; ++r)
    for (u32 i = 0; i + 1 < p; ++i) {
      b.send(r, (r + 1) % p, i, {(r + 2 * p - i - 1) % p});
      b.recv(r, (r + p - 1) % p, i, {(r + 2 * p - i - 2) % p}, true);
    }
}

void reduce_scatter_pairwise(Builder& b, u32 p) {  // MPICH reduce_scatter_intra_pairwise
  for (u32 r = 0; r < p; ++r)
    for (u32 i = 1; i < p; ++i) {
      const u32 src = (r + p - i) % p, dst = (r + i) % p;
      b.send(r, dst, i - 1, {dst});
      b.recv(r, src, i - 1, {r}, true);
    }
}

void reduce_scatter_recursive_halving(Builder& b, u32 p) {  // MPICH reduce_scatter_intra_recursive_halving
  const Fold f(p);
  const u32 pre = f.rem ? 1 : 0, lg = log2_floor(f.pof2);
  const auto all = all_blocks(b.s);
  auto group = [&](u32 nlo, u32 nhi) {
    std::vector<u32> out;
    for (u32 n = nlo; n < nhi; ++n) {
      if (n < f.rem) {
        out.push_back(2 * n);
        out.push_back(2 * n + 1);
      } else {
        out.push_back(n + f.rem);
      }
    }
    return out;
  };
  for (u32 r = 0; r < p; ++r) {
    if (r < 2 * f.rem) {
      if (r % 2 == 0)
        b.send(r, r + 1, 0, all);
      else
        b.recv(r, r - 1, 0, all, true);
    }
    const long nrl = f.newrank(r);
    if (nrl >= 0) {
      const u32 nr = static_cast<u32>(nrl);
      u32 mask = f.pof2 >> 1, send_idx = 0, recv_idx = 0, last_idx = f.pof2, step = pre;
      while (mask > 0) {
        const u32 ndst = nr ^ mask;
        std::vector<u32> sb, rb;
        if (nr < ndst) {
          send_idx = recv_idx + mask;
          sb = group(send_idx, last_idx);
          rb = group(recv_idx, send_idx);
        } else {
          recv_idx = send_idx + mask;
          sb = group(send_idx, recv_idx);
          rb = group(recv_idx, last_idx);
        }
        b.send(r, f.real(ndst), step, sb);
        b.recv(r, f.real(ndst), step, rb, true);
        send_idx = recv_idx;
        last_idx = recv_idx + mask;
        mask >>= 1;
        ++step;
      }
    }
    if (r < 2 * f.rem) {
      if (r % 2)
        b.send(r, r - 1, pre + lg, {r - 1});
      else
        b.recv(r, r + 1, pre + lg, {r}, false);
    }
  }
}

// ---- barrier: block i = "rank i has arrived", 0 bytes ---------------------------------------------

void barrier_dissemination(Builder& b, u32 p) {  // MPICH barrier_intra_recursive_doubling (dissemination)
  for (u32 r = 0; r < p; ++r) {
    u32 step = 0;
    for (u32 mask = 1; mask < p; mask <<= 1, ++step) {
      const u32 dst = (r + mask) % p, src = (r + p - mask) % p;
      std::vector<u32> sb, rb;
      for (u32 j = 0; j < mask; ++j) {
        sb.push_back((r + p - j) % p);
        rb.push_back((src + p - j) % p);
      }
      b.send(r, dst, step, sb);
      b.recv(r, src, step, rb, false);
    }
  }
}

void require(bool ok, const std::string& what) {
  if (!ok) throw usage_error(what);
}

}  // namespace

// ---- Names ------------------------------------------------------------------------------------

std::string_view name(Kind k) noexcept { return kind_names[static_cast<std::size_t>(k)]; }
std::string_view name(Algorithm a) noexcept { return algorithm_names[static_cast<std::size_t>(a)]; }
std::string_view name(ReduceOp o) noexcept { return op_names[static_cast<std::size_t>(o)]; }

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> v = {Kind::allreduce, Kind::bcast,    Kind::reduce,         Kind::gather, Kind::scatter,
                                      Kind::allgather, Kind::alltoall, Kind::reduce_scatter, Kind::barrier};
  return v;
}

const std::vector<Algorithm>& algorithms(Kind k) {
  using A = Algorithm;
  static const std::vector<std::vector<Algorithm>> table = {
      {A::ring, A::recursive_doubling, A::rabenseifner, A::binomial},         // allreduce
      {A::binomial, A::scatter_allgather, A::scatter_ring_allgather, A::pipeline},  // bcast
      {A::binomial},                                                          // reduce
      {A::binomial},                                                          // gather
      {A::binomial},                                                          // scatter
      {A::ring, A::recursive_doubling, A::bruck},                             // allgather
      {A::pairwise, A::bruck, A::linear},                                     // alltoall
      {A::ring, A::recursive_halving, A::pairwise},                           // reduce-scatter
      {A::dissemination, A::tree},                                            // barrier
  };
  return table[static_cast<std::size_t>(k)];
}

bool accepts(Kind k, Algorithm a) {
  const auto& v = algorithms(k);
  return std::find(v.begin(), v.end(), a) != v.end();
}

Kind parse_kind(std::string_view text) {
  const std::string t = canonical(text);
  std::vector<std::string> names;
  for (Kind k : kinds()) {
    if (name(k) == t) return k;
    names.emplace_back(name(k));
  }
  std::string valid;
  for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + n;
  throw usage_error(fmt::format("unknown collective '{}'{}", text, valid_names_tail(t, names, valid)));
}

Algorithm parse_algorithm(Kind k, std::string_view text) {
  const std::string t = canonical(text);
  std::vector<std::string> names;
  for (Algorithm a : algorithms(k)) {
    if (name(a) == t) return a;
    names.emplace_back(name(a));
  }
  std::string valid;
  for (const auto& n : names) valid += (valid.empty() ? "" : "|") + n;
  throw usage_error(
      fmt::format("{}: unknown algorithm '{}'{}", name(k), text, valid_names_tail(t, names, valid)));
}

ReduceOp parse_op(std::string_view text) {
  std::vector<std::string> names(op_names.begin(), op_names.end());
  for (std::size_t i = 0; i < op_names.size(); ++i)
    if (op_names[i] == text) return static_cast<ReduceOp>(i);
  throw usage_error(fmt::format("unknown reduction op '{}'{}", text,
                                valid_names_tail(text, names, "sum|prod|max|min|band|bor|bxor")));
}

// ---- Schedules --------------------------------------------------------------------------------

std::uint64_t Schedule::messages() const noexcept {
  std::uint64_t n = 0;
  for (const auto& ops : ranks)
    for (const auto& op : ops) n += op.type == Op::Type::send;
  return n;
}

std::uint64_t Schedule::bytes_sent() const noexcept {
  std::uint64_t n = 0;
  for (const auto& ops : ranks)
    for (const auto& op : ops)
      if (op.type == Op::Type::send) n += op.bytes;
  return n;
}

namespace {

void validate(const Spec& s) {
  const std::string k(name(s.kind));
  require(s.p >= 1, fmt::format("{}: p = 0 ranks; at least 1 is needed", k));
  require(s.p <= (1u << 20), fmt::format("{}: p = {} ranks is out of range [1, 2^20]", k, s.p));
  if (!accepts(s.kind, s.algorithm)) {
    std::string valid;
    for (Algorithm a : algorithms(s.kind)) valid += (valid.empty() ? "" : "|") + std::string(name(a));
    throw usage_error(fmt::format("{}: algorithm '{}' does not apply; valid: {}", k, name(s.algorithm), valid));
  }
  const bool rooted = s.kind == Kind::bcast || s.kind == Kind::reduce || s.kind == Kind::gather || s.kind == Kind::scatter;
  require(!rooted || s.root < s.p, fmt::format("{}: root = {} is out of range [0, {}]", k, s.root, s.p - 1));
  require(rooted || s.root == 0, fmt::format("{}: root = {} given, but {} has no root", k, s.root, k));
  const bool v1 = s.kind == Kind::gather || s.kind == Kind::scatter || s.kind == Kind::allgather ||
                  s.kind == Kind::reduce_scatter;
  if (!s.counts.empty()) {
    require(v1 || s.kind == Kind::alltoall,
            fmt::format("{}: per-rank counts apply to gather, scatter, allgather, alltoall and reduce-scatter", k));
    const u64 want = s.kind == Kind::alltoall ? u64{s.p} * s.p : s.p;
    require(s.counts.size() == want,
            fmt::format("{}: counts has {} entries; {} are needed ({})", k, s.counts.size(), want,
                        s.kind == Kind::alltoall ? "p*p, row-major [src*p+dst]" : "one per rank"));
    for (u64 c : s.counts) require(c <= (u64{1} << 40), fmt::format("{}: a count of {} bytes exceeds 2^40", k, c));
  } else if (s.kind != Kind::barrier) {
    require(s.bytes >= 1, fmt::format("{}: bytes = 0; at least 1 is needed (MPI returns at once on a zero count)", k));
    require(s.bytes <= (u64{1} << 40), fmt::format("{}: bytes = {} is out of range [1, 2^40]", k, s.bytes));
  }
  require(s.kind != Kind::alltoall || s.p <= 4096,
          fmt::format("alltoall: p = {} ranks; at most 4096 (its schedule holds p^2 blocks)", s.p));
  if (s.algorithm == Algorithm::pipeline) {
    require(s.segment >= 1, "bcast: segment = 0 bytes; at least 1 is needed");
    require((s.bytes + s.segment - 1) / s.segment <= (1u << 20),
            fmt::format("bcast: {} bytes in segments of {} make more than 2^20 segments", s.bytes, s.segment));
  }
  // The 2^32 limits of block ids and the memory of a schedule: at most ~2^26 block entries.
  const u64 p = s.p;
  u64 entries = 0;
  switch (s.kind) {
    case Kind::alltoall: entries = s.algorithm == Algorithm::bruck ? p * p * (log2_ceil(s.p) + 2) / 2 : 2 * p * p; break;
    case Kind::allgather: entries = s.algorithm == Algorithm::ring ? 2 * p * p : 2 * p * p * (log2_ceil(s.p) + 1); break;
    case Kind::barrier: entries = s.algorithm == Algorithm::dissemination ? 2 * p * p : 4 * p * log2_ceil(s.p) * p; break;
    default: entries = 4 * p * (log2_ceil(s.p) + 2) + 4 * p * p; break;
  }
  require(entries <= (u64{1} << 28),
          fmt::format("{} {}: p = {} ranks makes a schedule of ~{} block entries; at most 2^28", k, name(s.algorithm),
                      s.p, entries));
}

}  // namespace

Schedule build(const Spec& spec) {
  validate(spec);
  Schedule s;
  s.spec = spec;
  const u32 p = spec.p;
  s.ranks.resize(p);
  s.initial.resize(p);
  s.final_blocks.resize(p);
  Builder b{s};
  using A = Algorithm;
  const A a = spec.algorithm;
  auto per_rank = [&]() { return spec.counts.empty() ? std::vector<u64>(p, spec.bytes) : spec.counts; };
  auto everyone_all = [&](std::vector<std::vector<u32>>& v) {
    for (u32 r = 0; r < p; ++r) v[r] = all_blocks(s);
  };
  switch (spec.kind) {
    case Kind::allreduce: {
      s.reduces = true;
      if (a == A::ring)
        s.block_bytes = split(spec.bytes, p);
      else if (a == A::rabenseifner)
        s.block_bytes = split(spec.bytes, floor_pof2(p));
      else
        s.block_bytes = {spec.bytes};
      everyone_all(s.initial);
      everyone_all(s.final_blocks);
      if (p == 1) break;
      if (a == A::ring) allreduce_ring(b, p);
      if (a == A::recursive_doubling) allreduce_recursive_doubling(b, p);
      if (a == A::rabenseifner) allreduce_rabenseifner(b, p);
      if (a == A::binomial) {
        binomial_reduce(b, p, 0, {0}, 0);
        binomial_bcast(b, p, 0, {0}, log2_ceil(p));
      }
      break;
    }
    case Kind::bcast: {
      if (a == A::binomial) {
        s.block_bytes = {spec.bytes};
      } else if (a == A::pipeline) {
        const u64 segs = (spec.bytes + spec.segment - 1) / spec.segment;
        s.block_bytes.assign(segs, spec.segment);
        s.block_bytes.back() = spec.bytes - (segs - 1) * spec.segment;
      } else {
        const u64 ss = (spec.bytes + p - 1) / p;  // MPICH's scatter_size
        for (u32 j = 0; j < p; ++j) {
          const u64 lo = std::min<u64>(spec.bytes, j * ss);
          s.block_bytes.push_back(std::min<u64>(spec.bytes - lo, ss));
        }
      }
      s.initial[spec.root] = all_blocks(s);
      // An empty chunk (n < p ceil(n/p)) holds no data: every rank has it from the start, and
      // the allgather's zero-byte messages that carry it (MPICH still sends them) are legal.
      for (u32 r = 0; r < p; ++r)
        if (r != spec.root)
          for (u32 j = 0; j < s.block_bytes.size(); ++j)
            if (s.block_bytes[j] == 0) s.initial[r].push_back(j);
      everyone_all(s.final_blocks);
      if (p == 1) break;
      if (a == A::binomial) binomial_bcast(b, p, spec.root, {0}, 0);
      if (a == A::pipeline) bcast_pipeline(b, p, spec.root);
      if (a == A::scatter_allgather) bcast_scatter_allgather(b, p, spec.root, !is_pof2(p));
      if (a == A::scatter_ring_allgather) bcast_scatter_allgather(b, p, spec.root, true);
      break;
    }
    case Kind::reduce: {
      s.reduces = true;
      s.block_bytes = {spec.bytes};
      everyone_all(s.initial);
      s.final_blocks[spec.root] = {0};
      if (p > 1) binomial_reduce(b, p, spec.root, {0}, 0);
      break;
    }
    case Kind::gather:
    case Kind::scatter: {
      s.block_bytes = per_rank();
      if (spec.kind == Kind::gather) {
        for (u32 r = 0; r < p; ++r) s.initial[r] = {r};
        s.final_blocks[spec.root] = all_blocks(s);
        if (p > 1) binomial_gather(b, p, spec.root, 0);
      } else {
        s.initial[spec.root] = all_blocks(s);
        for (u32 r = 0; r < p; ++r) s.final_blocks[r] = {r};
        if (p > 1) binomial_scatter(b, p, spec.root, 0);
      }
      break;
    }
    case Kind::allgather: {
      s.block_bytes = per_rank();
      for (u32 r = 0; r < p; ++r) s.initial[r] = {r};
      everyone_all(s.final_blocks);
      if (p == 1) break;
      if (a == A::ring) allgather_ring(b, p);
      if (a == A::recursive_doubling) allgather_recursive_doubling(b, p);
      if (a == A::bruck) allgather_bruck(b, p);
      break;
    }
    case Kind::alltoall: {
      s.block_bytes = spec.counts.empty() ? std::vector<u64>(u64{p} * p, spec.bytes) : spec.counts;
      for (u32 r = 0; r < p; ++r)
        for (u32 j = 0; j < p; ++j) {
          s.initial[r].push_back(r * p + j);
          s.final_blocks[r].push_back(j * p + r);
        }
      if (p == 1) break;
      if (a == A::pairwise) alltoall_pairwise(b, p);
      if (a == A::linear) alltoall_linear(b, p);
      if (a == A::bruck) alltoall_bruck(b, p);
      break;
    }
    case Kind::reduce_scatter: {
      s.reduces = true;
      s.block_bytes = per_rank();
      everyone_all(s.initial);
      for (u32 r = 0; r < p; ++r) s.final_blocks[r] = {r};
      if (p == 1) break;
      if (a == A::ring) reduce_scatter_ring(b, p);
      if (a == A::pairwise) reduce_scatter_pairwise(b, p);
      if (a == A::recursive_halving) reduce_scatter_recursive_halving(b, p);
      break;
    }
    case Kind::barrier: {
      s.block_bytes.assign(p, 0);
      for (u32 r = 0; r < p; ++r) s.initial[r] = {r};
      everyone_all(s.final_blocks);
      if (p == 1) break;
      if (a == A::dissemination) barrier_dissemination(b, p);
      if (a == A::tree) {
        binomial_gather(b, p, 0, 0);
        binomial_bcast(b, p, 0, all_blocks(s), log2_ceil(p));
      }
      break;
    }
  }
  return s;
}

std::uint64_t message_count(const Spec& spec) {
  validate(spec);
  const u64 p = spec.p;
  if (p == 1) return 0;
  const u64 pof2 = floor_pof2(spec.p), rem = p - pof2, lg = log2_floor(static_cast<u32>(pof2)),
            clg = log2_ceil(spec.p);
  using A = Algorithm;
  switch (spec.kind) {
    case Kind::allreduce:
      switch (spec.algorithm) {
        case A::ring: return 2 * p * (p - 1);
        case A::recursive_doubling: return 2 * rem + pof2 * lg;
        case A::rabenseifner: return 2 * rem + 2 * pof2 * lg;
        default: return 2 * (p - 1);  // binomial: reduce + bcast
      }
    case Kind::bcast:
      switch (spec.algorithm) {
        case A::binomial: return p - 1;
        case A::pipeline: return (p - 1) * ((spec.bytes + spec.segment - 1) / spec.segment);
        default: {
          // Scatter: one message to every relative rank j >= 1 whose chunk is not empty: the
          // first k = ceil(n / ceil(n/p)) chunks hold data. Allgather: p lg p (recursive
          // doubling, p a power of two) or p (p - 1) (ring).
          const u64 ss = (spec.bytes + p - 1) / p, k = (spec.bytes + ss - 1) / ss;
          const bool rd = spec.algorithm == A::scatter_allgather && rem == 0;
          return (k - 1) + (rd ? p * lg : p * (p - 1));
        }
      }
    case Kind::reduce:
    case Kind::gather:
    case Kind::scatter: return p - 1;
    case Kind::allgather:
      switch (spec.algorithm) {
        case A::ring: return p * (p - 1);
        case A::recursive_doubling: return 2 * rem + pof2 * lg;
        default: return p * clg;  // bruck
      }
    case Kind::alltoall:
      return spec.algorithm == A::bruck ? p * clg : p * (p - 1);
    case Kind::reduce_scatter:
      return spec.algorithm == A::recursive_halving ? 2 * rem + pof2 * lg : p * (p - 1);
    case Kind::barrier:
      return spec.algorithm == A::dissemination ? p * clg : 2 * (p - 1);
  }
  return 0;
}

// ---- MPICH's defaults (MPIR_*_intra_auto, default CVARs) -------------------------------------

Algorithm choose(Kind k, std::uint32_t p, std::uint64_t bytes) {
  using A = Algorithm;
  const bool pof2 = is_pof2(p);
  switch (k) {
    case Kind::allreduce:
      // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048; the count test (count < pof2) taken per byte.
      return bytes <= 2048 || bytes < floor_pof2(p) ? A::recursive_doubling : A::rabenseifner;
    case Kind::bcast:
      // MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288, MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288, MIN_PROCS = 8.
      if (bytes < 12288 || p < 8) return A::binomial;
      if (bytes < 524288 && pof2) return A::scatter_allgather;
      return A::scatter_ring_allgather;
    case Kind::reduce:
    case Kind::gather:
    case Kind::scatter: return A::binomial;
    case Kind::allgather: {
      // Total bytes: MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE = 524288, SHORT = 81920.
      const u64 total = bytes * p;
      if (total < 524288 && pof2) return A::recursive_doubling;
      if (total < 81920) return A::bruck;
      return A::ring;
    }
    case Kind::alltoall:
      // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256 (and p >= 8), MEDIUM = 32768; bytes per block.
      if (bytes <= 256 && p >= 8) return A::bruck;
      if (bytes <= 32768) return A::linear;
      return A::pairwise;
    case Kind::reduce_scatter:
      // Commutative op: total bytes < MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE = 524288.
      return bytes * p < 524288 ? A::recursive_halving : A::pairwise;
    case Kind::barrier: return A::dissemination;
  }
  return A::binomial;
}

std::string_view rule_text(Kind k) noexcept {
  switch (k) {
    case Kind::allreduce: return "recursive-doubling if bytes <= 2048 (or fewer bytes than pof2), else rabenseifner";
    case Kind::bcast:
      return "binomial if bytes < 12288 or p < 8; scatter-allgather if bytes < 524288 and p a power of two; "
             "else scatter-ring-allgather";
    case Kind::reduce: return "binomial (MPICH takes its reduce-scatter-gather above 2048 bytes: not modelled)";
    case Kind::gather: return "binomial";
    case Kind::scatter: return "binomial";
    case Kind::allgather:
      return "recursive-doubling if p*bytes < 524288 and p a power of two; bruck if p*bytes < 81920; else ring";
    case Kind::alltoall: return "bruck if bytes <= 256 and p >= 8; linear if bytes <= 32768; else pairwise";
    case Kind::reduce_scatter: return "recursive-halving if p*bytes < 524288; else pairwise";
    case Kind::barrier: return "dissemination";
  }
  return "";
}

}  // namespace rica::coll
