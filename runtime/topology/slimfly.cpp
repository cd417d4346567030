#include "rica/topology/slimfly.hpp"
#include "family_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace rica {

namespace {

/// The largest q: 2q^2 = 20,402 routers, 1.55M PEs at the default p; the next-hop table (routers^2
/// entries of 2 bytes) takes 0.83 GB. q = 89 is the 1M-PE machine (docs/runtime.md, "Scale").
constexpr unsigned max_q = 101;

/// GF(q) for q = prime^k <= max_q, elements 0..q-1 as base-prime digit strings (coefficients of a
/// polynomial over Z_prime): addition and multiplication tables, and a primitive element xi —
/// for k = 1 the least primitive root, for k > 1 the class of x modulo the first primitive monic
/// polynomial (lowest coefficients counted up), so that the graph is a function of q alone.
struct Field {
  unsigned q = 0, prime = 0, k = 0, xi = 0;
  std::vector<unsigned> add_, mul_;
  unsigned add(unsigned a, unsigned b) const { return add_[a * q + b]; }
  unsigned mul(unsigned a, unsigned b) const { return mul_[a * q + b]; }
  unsigned neg(unsigned a) const {
    for (unsigned b = 0; b < q; ++b)
      if (add(a, b) == 0) return b;
    return 0;
  }
};

/// The field of order q, or k = 0 when q is not a prime power.
Field make_field(unsigned q) {
  Field f;
  f.q = q;
  unsigned pr = 2;
  while (q % pr != 0) ++pr;
  unsigned k = 0, n = q;
  while (n % pr == 0) n /= pr, ++k;
  if (n != 1) return f;
  f.prime = pr;
  auto digits = [&](unsigned a) {
    std::vector<unsigned> d(k);
    for (unsigned i = 0; i < k; ++i) d[i] = a % pr, a /= pr;
    return d;
  };
  auto value = [&](const std::vector<unsigned>& d) {
    unsigned a = 0;
    for (unsigned i = k; i-- > 0;) a = a * pr + d[i];
    return a;
  };
  f.add_.resize(q * q);
  for (unsigned a = 0; a < q; ++a)
    for (unsigned b = 0; b < q; ++b) {
      auto da = digits(a), db = digits(b);
      for (unsigned i = 0; i < k; ++i) da[i] = (da[i] + db[i]) % pr;
      f.add_[a * q + b] = value(da);
    }
  // Product of a and b modulo the monic polynomial x^k + sum low[i] x^i.
  auto mulmod = [&](unsigned a, unsigned b, const std::vector<unsigned>& low) {
    const auto da = digits(a), db = digits(b);
    std::vector<unsigned> c(2 * k, 0);
    for (unsigned i = 0; i < k; ++i)
      for (unsigned j = 0; j < k; ++j) c[i + j] = (c[i + j] + da[i] * db[j]) % pr;
    for (unsigned i = 2 * k - 1; i >= k; --i) {
      const unsigned top = c[i];
      c[i] = 0;
      for (unsigned j = 0; j < k; ++j) c[i - k + j] = (c[i - k + j] + (pr - top) * low[j]) % pr;
    }
    c.resize(k);
    return value(c);
  };
  if (k == 1) {
    f.mul_.resize(q * q);
    for (unsigned a = 0; a < q; ++a)
      for (unsigned b = 0; b < q; ++b) f.mul_[a * q + b] = a * b % q;
    for (f.xi = 2;; ++f.xi) {
      unsigned x = 1, order = 0;
      do x = x * f.xi % q, ++order;
      while (x != 1);
      if (order == q - 1) break;
    }
  } else {
    for (unsigned code = 1; code < q; ++code) {  // low coefficients; constant term nonzero
      const std::vector<unsigned> low = digits(code);
      if (low[0] == 0) continue;
      unsigned x = 1, order = 0;
      do x = mulmod(x, pr, low), ++order;  // times the class of x (digits 0, 1, 0, ...)
      while (x != 1 && order < q);
      if (x != 1 || order != q - 1) continue;
      f.mul_.resize(q * q);
      for (unsigned a = 0; a < q; ++a)
        for (unsigned b = 0; b < q; ++b) f.mul_[a * q + b] = mulmod(a, b, low);
      f.xi = pr;
      break;
    }
  }
  f.k = k;
  return f;
}

}  // namespace

SlimFlyTopology::SlimFlyTopology(unsigned q, unsigned p, unsigned classes) : q_(q), p_(p) {
  detail::check_range("slimfly", "q", q, 3, max_q);
  const Field F = make_field(q);
  if (F.k == 0 || q % 4 == 2) {
    std::string valid;  // every accepted q, in order
    for (unsigned x = 3; x <= max_q; ++x)
      if (x % 4 != 2 && make_field(x).k != 0) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", x);
    throw usage_error(fmt::format("slimfly: parameter 'q' = {} must be a prime power 4w + d, d in {{-1, 0, 1}}: {}",
                                  q, valid));
  }
  detail::check_range("slimfly", "p", p, 1, 1024);
  detail::check_range("slimfly", "classes", classes == 0 ? derived_classes() : classes, 1, derived_classes());
  classes_ = classes == 0 ? derived_classes() : static_cast<class_t>(classes);
  const int delta = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
  const unsigned w = static_cast<unsigned>((static_cast<int>(q) - delta) / 4);  // q = 4w + delta
  k_ = static_cast<unsigned>((3 * static_cast<int>(q) - delta) / 2);
  routers_ = 2 * q * q;
  pes_ = routers_ * p;
  detail::check_ports_and_classes("slimfly", std::uint64_t{p} + k_, classes_);

  // Powers of the primitive element xi, and the generator sets X, X' (Hafner; Besta and Hoefler).
  std::vector<unsigned> pw(2 * q);
  pw[0] = 1;
  for (unsigned i = 1; i < pw.size(); ++i) pw[i] = F.mul(pw[i - 1], F.xi);
  std::vector<unsigned> X, Xp;
  if (delta == 1) {
    for (unsigned i = 0; i + 1 < q; ++i) (i % 2 == 0 ? X : Xp).push_back(pw[i]);
  } else if (delta == 0) {
    for (unsigned i = 0; i <= q - 2; i += 2) X.push_back(pw[i]);
    for (unsigned i = 1; i <= q - 1; i += 2) Xp.push_back(pw[i]);
  } else {
    for (unsigned i = 0; i <= 2 * w - 2; i += 2) X.push_back(pw[i]);
    for (unsigned i = 2 * w - 1; i <= 4 * w - 3; i += 2) X.push_back(pw[i]);
    for (unsigned i = 1; i <= 2 * w - 1; i += 2) Xp.push_back(pw[i]);
    for (unsigned i = 2 * w; i <= 4 * w - 2; i += 2) Xp.push_back(pw[i]);
  }
  std::sort(X.begin(), X.end());
  std::sort(Xp.begin(), Xp.end());
  auto symmetric = [&F](const std::vector<unsigned>& s) {
    for (unsigned d : s)
      if (!std::binary_search(s.begin(), s.end(), F.neg(d))) return false;
    return std::adjacent_find(s.begin(), s.end()) == s.end();
  };
  if (X.size() + q != k_ || Xp.size() + q != k_ || !symmetric(X) || !symmetric(Xp))
    throw std::logic_error(fmt::format("slimfly: generator sets of q = {} are not symmetric", q));

  auto t = std::make_shared<Tables>();
  const node_t R = routers_, qq = q * q;
  t->peer.resize(std::size_t{R} * k_);
  for (node_t r = 0; r < R; ++r) {
    const unsigned s = r / qq, a = r / q % q, b = r % q;  // (0, x=a, y=b) or (1, m=a, c=b)
    node_t* nb = &t->peer[std::size_t{r} * k_];
    unsigned j = 0;
    for (unsigned d : (s == 0 ? X : Xp)) nb[j++] = s * qq + a * q + F.add(b, d);
    for (unsigned z = 0; z < q; ++z) {
      if (s == 0)
        nb[j++] = qq + z * q + F.add(b, F.neg(F.mul(z, a)));  // (1, m=z, c=y-m*x)
      else
        nb[j++] = z * q + F.add(F.mul(a, z), b);  // (0, x=z, y=m*x+c)
    }
  }
  t->in_port.resize(t->peer.size());
  for (node_t r = 0; r < R; ++r)
    for (unsigned j = 0; j < k_; ++j) {
      const node_t u = t->peer[std::size_t{r} * k_ + j];
      const node_t* nb = &t->peer[std::size_t{u} * k_];
      const auto back = std::find(nb, nb + k_, r) - nb;
      if (back == k_) throw std::logic_error("slimfly: a link without its reverse");
      t->in_port[std::size_t{r} * k_ + j] = static_cast<port_t>(p + back);
    }
  // Next hops: the neighbour itself, else the common neighbour on the lowest port.
  constexpr std::uint16_t none = 0xFFFF;
  t->next.assign(std::size_t{R} * R, none);
  for (node_t r = 0; r < R; ++r) {
    std::uint16_t* nx = &t->next[std::size_t{r} * R];
    const node_t* nb = &t->peer[std::size_t{r} * k_];
    for (unsigned j = 0; j < k_; ++j) nx[nb[j]] = static_cast<std::uint16_t>(j);
    for (unsigned j = 0; j < k_; ++j) {
      const node_t* nb2 = &t->peer[std::size_t{nb[j]} * k_];
      for (unsigned i = 0; i < k_; ++i)
        if (nb2[i] != r && nx[nb2[i]] == none) nx[nb2[i]] = static_cast<std::uint16_t>(j | 0x8000u);
    }
    for (node_t v = 0; v < R; ++v) {
      if (v == r) continue;
      if (nx[v] == none) throw std::logic_error(fmt::format("slimfly: q = {}: diameter above 2", q));
      nx[v] &= 0x7FFF;
    }
  }
  t_ = std::move(t);
}

std::string SlimFlyTopology::label(node_t v) const {
  const node_t r = v < pes_ ? v / p_ : v - pes_;
  const unsigned qq = q_ * q_;
  const std::string rl = fmt::format("({},{},{})", r / qq, r / q_ % q_, r % q_);
  return v < pes_ ? fmt::format("t{}.{}", rl, v % p_) : "r" + rl;
}

std::string SlimFlyTopology::spec() const {
  std::string s = fmt::format("slimfly:q={},p={}", q_, p_);
  if (classes_ != derived_classes()) s += fmt::format(",classes={}", classes_);
  return s;
}


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

using detail::certified;
using detail::explicit_classes;

Topology make_slimfly(const SpecArgs& a) {
  const unsigned q = a.uint("q");
  const int d = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
  const unsigned k = static_cast<unsigned>((3 * static_cast<long>(q) - d) / 2);  // router degree; the type checks q
  return certified(SlimFlyTopology(q, a.has("p") ? a.uint("p") : (k + 1) / 2, explicit_classes(a, "slimfly")), a,
                   "slimfly");
}

}  // namespace

std::vector<TopologyEntry> SlimFlyTopology::registry_entries() {
  return {
      {"slimfly", "Slim Fly: MMS diameter-2 graph of 2q^2 routers, p terminals (PEs) each; minimal routing, 2 classes",
       "slimfly:q=5",
       {{"q", "prime power 3..101", "", "field size: 2q^2 routers of degree (3q - d)/2, q = 4w + d, d in {-1,0,1}"},
        {"p", "1..1024", "ceil(k'/2)", "terminals (PEs) per router; default half the router degree k'"},
        {"classes", "1..2", "2",
         "buffer classes; given, the channel dependency check runs (pes x nodes <= 2^24) and refuses too few"}},
       "q", make_slimfly},
  };
}

}  // namespace rica
