#include "rica/topology/slimfly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace rica {

namespace {
bool is_prime(unsigned q) {
  if (q < 2) return false;
  for (unsigned d = 2; d * d <= q; ++d)
    if (q % d == 0) return false;
  return true;
}
}  // namespace

SlimFlyTopology::SlimFlyTopology(unsigned q, unsigned p, unsigned classes) : q_(q), p_(p) {
  detail::check_range("slimfly", "q", q, 3, 31);
  if (!is_prime(q) || q % 4 == 0 || q % 4 == 2)
    throw usage_error(fmt::format("slimfly: parameter 'q' = {} must be a prime with q mod 4 in {{1, 3}}: 3, 5, 7, "
                                  "11, 13, 17, 19, 23, 29 or 31 (prime powers are not built)",
                                  q));
  detail::check_range("slimfly", "p", p, 1, 1024);
  detail::check_range("slimfly", "classes", classes == 0 ? derived_classes() : classes, 1, derived_classes());
  classes_ = classes == 0 ? derived_classes() : static_cast<class_t>(classes);
  const int delta = q % 4 == 1 ? 1 : -1;
  const unsigned w = (q + (delta == 1 ? -1u : 1u)) / 4;  // q = 4w + delta
  k_ = (3 * q - delta) / 2;
  routers_ = 2 * q * q;
  pes_ = routers_ * p;
  detail::check_ports_and_classes("slimfly", std::uint64_t{p} + k_, classes_);

  // The least primitive element of F_q and its powers.
  unsigned xi = 2;
  for (;; ++xi) {
    unsigned x = 1, order = 0;
    do {
      x = x * xi % q;
      ++order;
    } while (x != 1);
    if (order == q - 1) break;
  }
  std::vector<unsigned> pw(2 * q);
  pw[0] = 1;
  for (unsigned i = 1; i < pw.size(); ++i) pw[i] = pw[i - 1] * xi % q;
  std::vector<unsigned> X, Xp;
  if (delta == 1) {
    for (unsigned i = 0; i + 1 < q; ++i) (i % 2 == 0 ? X : Xp).push_back(pw[i]);
  } else {
    for (unsigned i = 0; i <= 2 * w - 2; i += 2) X.push_back(pw[i]);
    for (unsigned i = 2 * w - 1; i <= 4 * w - 3; i += 2) X.push_back(pw[i]);
    for (unsigned i = 1; i <= 2 * w - 1; i += 2) Xp.push_back(pw[i]);
    for (unsigned i = 2 * w; i <= 4 * w - 2; i += 2) Xp.push_back(pw[i]);
  }
  std::sort(X.begin(), X.end());
  std::sort(Xp.begin(), Xp.end());
  auto symmetric = [q](const std::vector<unsigned>& s) {
    for (unsigned d : s)
      if (!std::binary_search(s.begin(), s.end(), (q - d) % q)) return false;
    return true;
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
    for (unsigned d : (s == 0 ? X : Xp)) nb[j++] = s * qq + a * q + (b + d) % q;
    for (unsigned z = 0; z < q; ++z) {
      if (s == 0)
        nb[j++] = qq + z * q + (b + q * q - z * a % q) % q;  // (1, m=z, c=y-m*x)
      else
        nb[j++] = z * q + (a * z + b) % q;  // (0, x=z, y=m*x+c)
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

}  // namespace rica
