// The machine over MPI ranks (runtime/machine/ranks.hpp, docs/distributed.md): start-up (rica/distributed.hpp),
// the node split, the cycle engine's per-cycle exchange and the gather onto rank 0 after the run.
// Only this file includes <mpi.h>; built without MPI (RICA_WITH_MPI=OFF or MPI absent) it keeps
// the one-process behaviour and make_ranks() always returns nullptr.
#include "machine.hpp"

#include <fcntl.h>

#include <cstring>
#include <type_traits>

#include "rica/core.hpp"
#include "rica/distributed.hpp"
#include "rica/partition.hpp"

#ifdef RICA_HAVE_MPI
// The C API only: without these, OpenMPI's mpi.h pulls in its deprecated C++ bindings, whose
// symbols a program linking rica through pkg-config (`mpi`: -lmpi) would then miss.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace rica::dist {
namespace {
unsigned g_size = 1, g_rank = 0;
[[maybe_unused]] bool g_started = false, g_finalized = false;  // without MPI: never set
int g_err_fd = 2;  ///< this rank's original standard error (ranks > 0 redirect fd 2)

[[maybe_unused]] bool launched_by_mpirun() {
  for (const char* k : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(k) != nullptr) return true;
  return false;
}
}  // namespace

bool built_with_mpi() noexcept {
#ifdef RICA_HAVE_MPI
  return true;
#else
  return false;
#endif
}
unsigned size() noexcept { return g_size; }
unsigned rank() noexcept { return g_rank; }

void init(int& argc, char**& argv) {
#ifdef RICA_HAVE_MPI
  if (g_started || !launched_by_mpirun()) return;
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
  g_started = true;
  int s = 1, r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  g_size = static_cast<unsigned>(s);
  g_rank = static_cast<unsigned>(r);
  std::atexit(finalize);
  if (g_size > 1 && g_rank > 0) {  // outputs come from rank 0 only
    g_err_fd = dup(2);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      std::fflush(stdout);
      std::fflush(stderr);
      dup2(null, 1);
      dup2(null, 2);
      close(null);
    }
  }
#else
  (void)argc;
  (void)argv;
#endif
}

void finalize() {
#ifdef RICA_HAVE_MPI
  if (!g_started || g_finalized) return;
  g_finalized = true;
  std::fflush(stdout);
  MPI_Finalize();
#endif
}

void abort(int status, const std::string& why) {
  const std::string line = why + "\n";
  if (write(g_err_fd, line.data(), line.size()) < 0) {
  }
#ifdef RICA_HAVE_MPI
  if (g_started && !g_finalized && g_size > 1) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::_Exit(status);
}

void require_one_process(const std::string& what) {
  if (g_size > 1)
    throw usage_error(fmt::format("{} runs in one process only ({} ranks here); run it without mpirun (or with -np 1)",
                                  what, g_size));
}

}  // namespace rica::dist

namespace rica::detail {

#ifndef RICA_HAVE_MPI

std::unique_ptr<Ranks> make_ranks(const Machine&) { return nullptr; }
// Never called without MPI (make_ranks returns no Ranks); defined so the driver links.
void Ranks::ship(Machine&, node_t, std::uint32_t) { std::abort(); }
void Ranks::ship_credit(Machine&, std::uint32_t, std::uint32_t) { std::abort(); }
Ranks::Sums Ranks::exchange(Machine&, const Sums&, std::vector<std::pair<node_t, std::uint32_t>>&) { std::abort(); }
bool Ranks::any(bool) { std::abort(); }
void Ranks::gather(Machine&, RunStats&) { std::abort(); }
void Ranks::share_outcome(RunStats&, std::string&) { std::abort(); }

#else

namespace {

/// A byte stream of trivially copyable values (one process's data for another).
struct Writer {
  std::vector<char> bytes;
  void append(const void* p, std::size_t n) {
    if (n == 0) return;
    const std::size_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, p, n);
  }
  template <class T>
  void put(const T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(&x, sizeof(T));
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    append(v.data(), v.size() * sizeof(T));
  }
  void put_string(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    append(s.data(), s.size());
  }
};
struct Reader {
  const char* p;
  const char* end;
  template <class T>
  T get() {
    T x;
    if (p + sizeof(T) > end) throw std::logic_error("rica: MPI gather: truncated message");
    std::memcpy(&x, p, sizeof(T));
    p += sizeof(T);
    return x;
  }
  template <class T>
  std::vector<T> get_vector() {
    const auto n = get<std::uint64_t>();
    if (p + n * sizeof(T) > end) throw std::logic_error("rica: MPI gather: truncated message");
    std::vector<T> v(n);
    if (n != 0) std::memcpy(v.data(), p, n * sizeof(T));  // an empty vector's data() may be null (UB for memcpy)
    p += n * sizeof(T);
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint64_t>();
    std::string s(p, p + n);
    p += n;
    return s;
  }
};

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) dist::abort(1, fmt::format("rica: rank {}: {} failed (MPI error {})", dist::rank(), what, rc));
}

/// Blocks of [lo, hi) over `ranks`: element x goes to (x - lo) * ranks / (hi - lo).
void blocks(std::vector<std::uint16_t>& owner, node_t lo, node_t hi, unsigned ranks) {
  const std::uint64_t n = hi - lo;
  for (node_t v = lo; v < hi; ++v) owner[v] = static_cast<std::uint16_t>((std::uint64_t{v - lo} * ranks) / n);
}

struct Scalars {  // ThreadStats without its vectors
  std::uint64_t delivered, hops, duplicates, beyond_bitmap, measured, delivered_in_window, lat_sum, lat_max,
      net_lat_sum, net_lat_max, hops_max, sum_delivered_ids, hop_sum;
};

}  // namespace

std::unique_ptr<Ranks> make_ranks(const Machine& m) {
  if (dist::size() <= 1) return nullptr;
  auto r = std::make_unique<Ranks>();
  r->size = dist::size();
  r->rank = dist::rank();
  if (r->size > 65535) throw usage_error("mpirun: at most 65535 ranks");
  const node_t nodes = m.nodes(), pes = m.pes();
  if (pes < r->size)
    throw usage_error(fmt::format("mpirun: {} ranks for {} PEs; use at most one rank per PE", r->size, pes));
  r->owner.assign(nodes, 0);
  blocks(r->owner, 0, pes, r->size);
  if (nodes > pes) blocks(r->owner, pes, nodes, r->size);
  r->split = "blocks";
  if (m.config().rank_split == RankSplit::partition) {
    PartitionRequest req;
    req.parts = r->size;
    req.verify.pairs = PairCheck::sample;
    req.verify.sample_destinations = 4;  // the cut matters here, not its closure
    PartitionPlan plan;
    try {
      plan = partition(m.topology(), req);
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("--rank-split partition: {}", e.what()));
    }
    for (node_t v = 0; v < pes; ++v)
      if (plan.part_of[v] < r->size) r->owner[v] = static_cast<std::uint16_t>(plan.part_of[v]);
    for (node_t v = pes; v < nodes; ++v)
      if (v < plan.node_owner.size() && plan.node_owner[v] < r->size) r->owner[v] = static_cast<std::uint16_t>(plan.node_owner[v]);
    r->split = "partition:" + plan.rule;
  }
  m.topology().visit([&](const auto& t) {
    for (node_t v = 0; v < nodes; ++v)
      for (port_t p = 0; p < m.ports(); ++p) {
        const Link l = t.out_link(v, p);
        if (!l.present() || l.peer == v) continue;
        ++r->links;
        if (r->owner[l.peer] != r->owner[v]) ++r->cut_links;
      }
  });
  if (const char* a = std::getenv("RICA_TEST_ABORT_RANK"); a && std::to_string(r->rank) == a) {
    const char* c = std::getenv("RICA_TEST_ABORT_CYCLE");
    r->abort_cycle = c ? std::atoi(c) : 10;
  }
  r->out_packets_.assign(r->size, {});
  r->out_credits_.assign(r->size, {});
  return r;
}

void Ranks::ship(Machine& m, node_t v, std::uint32_t in) {
  LinkBuffer& b = m.peer_buffer(v, in);  // a ghost buffer: v's state is not held here
  auto& out = out_packets_[owner[v]];
  while (!b.empty()) {
    out.push_back({v, in, b.front()});
    b.pop_and_check(m.main_slots());
    ++cross_hops;
  }
}

void Ranks::ship_credit(Machine& m, std::uint32_t ci, std::uint32_t words) {
  out_credits_[owner[m.node_of_credit(ci)]].push_back({ci, words});
}

Ranks::Sums Ranks::exchange(Machine& m, const Sums& local, std::vector<std::pair<node_t, std::uint32_t>>& arrived) {
  if (abort_cycle >= 0 && m.cycle() == static_cast<std::uint64_t>(abort_cycle))
    dist::abort(4, fmt::format("rica: rank {}: aborting at cycle {} (test hook RICA_TEST_ABORT_RANK)", rank, m.cycle()));
  constexpr int H = 7;  // header per destination: packets, credits, progress, delivered, any, total out, idle until
  std::vector<std::uint64_t> hout(std::size_t{size} * H), hin(std::size_t{size} * H);
  std::uint64_t total = 0;
  for (unsigned d = 0; d < size; ++d) total += out_packets_[d].size() + out_credits_[d].size();
  for (unsigned d = 0; d < size; ++d) {
    std::uint64_t* h = &hout[std::size_t{d} * H];
    h[0] = out_packets_[d].size();
    h[1] = out_credits_[d].size();
    h[2] = local.progress;
    h[3] = local.delivered;
    h[4] = local.any;
    h[5] = total;
    h[6] = local.idle_until;
  }
  const WaitTimer timer(mpi_wait_s);  // from here on: this rank in MPI (waiting for the others, exchanging)
  check(MPI_Alltoall(hout.data(), H, MPI_UINT64_T, hin.data(), H, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Alltoall");
  Sums s;
  std::uint64_t all = 0;
  for (unsigned src = 0; src < size; ++src) {
    const std::uint64_t* h = &hin[std::size_t{src} * H];
    s.progress += h[2];
    s.delivered += h[3];
    s.any |= h[4];
    all += h[5];
    s.idle_until = std::min(s.idle_until, h[6]);
  }
  s.shipped = all;
  if (all == 0) return s;
  // One message per destination rank: its packets, then its credits.
  constexpr std::size_t P = sizeof(PacketMsg), C = sizeof(CreditMsg);
  std::vector<int> scount(size), sdispl(size), rcount(size), rdispl(size);
  std::size_t sbytes = 0, rbytes = 0;
  for (unsigned d = 0; d < size; ++d) {
    const std::size_t b = out_packets_[d].size() * P + out_credits_[d].size() * C;
    const std::uint64_t* h = &hin[std::size_t{d} * H];
    const std::size_t rb = h[0] * P + h[1] * C;
    if (sbytes + b > 0x7fffffff || rbytes + rb > 0x7fffffff)
      dist::abort(1, fmt::format("rica: rank {}: more than 2 GB to exchange in one cycle", rank));
    scount[d] = static_cast<int>(b);
    sdispl[d] = static_cast<int>(sbytes);
    rcount[d] = static_cast<int>(rb);
    rdispl[d] = static_cast<int>(rbytes);
    sbytes += b;
    rbytes += rb;
  }
  std::vector<char> sbuf(sbytes), rbuf(rbytes);
  for (unsigned d = 0; d < size; ++d) {
    char* p = sbuf.data() + sdispl[d];
    if (!out_packets_[d].empty()) std::memcpy(p, out_packets_[d].data(), out_packets_[d].size() * P);
    if (!out_credits_[d].empty()) std::memcpy(p + out_packets_[d].size() * P, out_credits_[d].data(), out_credits_[d].size() * C);
    out_packets_[d].clear();
    out_credits_[d].clear();
  }
  check(MPI_Alltoallv(sbuf.data(), scount.data(), sdispl.data(), MPI_BYTE, rbuf.data(), rcount.data(), rdispl.data(),
                      MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Alltoallv");
  for (unsigned src = 0; src < size; ++src) {
    const std::uint64_t* h = &hin[std::size_t{src} * H];
    const char* p = rbuf.data() + rdispl[src];
    for (std::uint64_t k = 0; k < h[0]; ++k, p += P) {
      PacketMsg pm;
      std::memcpy(&pm, p, P);
      RICA_ASSERT(mine(pm.v), "a packet for a node of another rank");
      m.pe(pm.v).inputs[pm.in].push(m.credit(m.up_credit(pm.v, pm.in)), pm.p, m.main_slots());
      arrived.emplace_back(pm.v, pm.in);
    }
    for (std::uint64_t k = 0; k < h[1]; ++k, p += C) {
      CreditMsg c;
      std::memcpy(&c, p, C);
      m.credit(c.ci).popped_seen += c.words;
    }
  }
  return s;
}

bool Ranks::any(bool local) {
  const WaitTimer timer(mpi_wait_s);
  int in = local ? 1 : 0, out = 0;
  check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "MPI_Allreduce");
  return out != 0;
}

namespace {
double peak_rss_kb_now() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss);
}
constexpr int kGatherTag = 12;
}  // namespace

void Ranks::gather(Machine& m, RunStats& st) {
  const bool tracing = !m.ledger().traces().empty();
  // The exactly-once record: or over the ranks (each packet is delivered at its destination's rank).
  if (!m.ledger().id_words().empty()) {
    std::vector<std::uint64_t> bits(m.ledger().id_words().size()), sum(rank == 0 ? m.ledger().id_words().size() : 0);
    for (std::size_t k = 0; k < bits.size(); ++k) bits[k] = m.ledger().id_words()[k].load(std::memory_order_relaxed);
    for (std::size_t off = 0; off < bits.size(); off += std::size_t{1} << 28) {  // int counts
      const int n = static_cast<int>(std::min<std::size_t>(bits.size() - off, std::size_t{1} << 28));
      check(MPI_Reduce(bits.data() + off, rank == 0 ? sum.data() + off : nullptr, n, MPI_UINT64_T, MPI_BOR, 0,
                       MPI_COMM_WORLD),
            "MPI_Reduce");
    }
    if (rank == 0)
      for (std::size_t k = 0; k < sum.size(); ++k) m.ledger().id_words()[k].store(sum[k], std::memory_order_relaxed);
  }
  // Each rank's figures: sums, non-empty buffers, per-node counters, traces, application
  // results, statistics. Rank 0 takes them in one rank at a time (its transient memory is one
  // rank's message), straight into st's tables: no rank ever holds another's node state.
  m.ledger().sums() = {};
  m.ledger().stuck().clear();
  // Messages from a rank: node records (node, counters, link counts, trace rows, application
  // results) ended by no_node, in pieces of about kChunk bytes (so that neither side ever holds
  // a whole rank's records), the last piece followed by the rank's sums, stuck buffers and
  // statistics. Each message starts with a byte: 1 for the last.
  constexpr std::size_t kChunk = std::size_t{4} << 20;
  if (rank != 0) {
    Writer w;
    m.node_figures(st, m.ledger().sums());  // st's tables stay empty here: sums and stuck buffers only
    auto send = [&] {
      if (w.bytes.size() > 0x7fffffff)
        dist::abort(1, fmt::format("rica: rank {}: more than 2 GB in one message", rank));
      check(MPI_Send(w.bytes.data(), static_cast<int>(w.bytes.size()), MPI_BYTE, 0, kGatherTag, MPI_COMM_WORLD),
            "MPI_Send");
      w.bytes.clear();
    };
    w.put(std::uint8_t{0});
    for (node_t v = 0; v < m.nodes(); ++v) {
      if (!mine(v)) continue;
      if (w.bytes.size() >= kChunk) {
        w.put(no_node);
        send();
        w.put(std::uint8_t{0});
      }
      const PeState& s = m.pe(v);
      w.put(v);
      w.put(s.injected);
      w.put(s.delivered);
      w.put(s.forwarded);
      w.put(s.blocked);
      w.append(m.link_packets(v), sizeof(std::uint64_t) * m.ports());
      if (tracing && v < m.pes()) w.put_vector(m.ledger().traces()[v]);
      for (std::size_t j = 0; j < m.jobs().size(); ++j) {
        // The application's results of this PE (App::pe_result), for rank 0's verify().
        const node_t local = v < m.pes() ? m.jobs()[j].local(v) : no_node;
        if (local != no_node) w.put_string(m.jobs()[j].app->pe_result(local));
      }
    }
    w.put(no_node);  // end of the nodes
    w.bytes[0] = 1;  // the last message: the rank's sums and statistics follow
    w.put(m.ledger().sums());
    w.put_vector(m.ledger().stuck());
    ThreadStats t;
    t.job.assign(m.jobs().size(), {});
    for (const ThreadStats& ts : m.thread_stats()) t.add(ts);
    w.put(Scalars{t.delivered, t.hops, t.duplicates, t.beyond_bitmap, t.measured, t.delivered_in_window, t.lat_sum,
                  t.lat_max, t.net_lat_sum, t.net_lat_max, t.hops_max, t.sum_delivered_ids, t.hop_sum});
    w.put_vector(t.hop_hist);
    w.put_vector(t.lat_hist);
    w.put_vector(t.net_lat_hist);
    w.put_vector(t.class_hist);
    w.put_vector(t.job);
    w.put(cross_hops);
    w.put(mpi_wait_s);
    w.put(st.wall_s);
    w.put(static_cast<std::uint64_t>(peak_rss_kb_now()));  // this rank's peak, its messages built
    send();
    return;
  }
  m.size_tables(st);
  m.node_figures(st, m.ledger().sums());
  NodeSums& sums = m.ledger().sums();
  std::uint64_t total_cross = cross_hops;
  std::vector<std::uint64_t> rss(size, 0);
  std::vector<double> wait(size, 0), wall(size, 0);
  wait[0] = mpi_wait_s;
  wall[0] = st.wall_s;
  std::vector<char> buf;
  for (unsigned src = 1; src < size; ++src) {
    for (bool last = false; !last;) {  // src's messages, in order (MPI does not overtake)
      MPI_Status status;
      check(MPI_Probe(static_cast<int>(src), kGatherTag, MPI_COMM_WORLD, &status), "MPI_Probe");
      int bytes = 0;
      check(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
      buf.assign(static_cast<std::size_t>(bytes), 0);
      check(MPI_Recv(buf.data(), bytes, MPI_BYTE, static_cast<int>(src), kGatherTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
      Reader r{buf.data(), buf.data() + buf.size()};
      last = r.get<std::uint8_t>() != 0;
      for (node_t v = r.get<node_t>(); v != no_node; v = r.get<node_t>()) {
        if (v >= m.nodes()) throw std::logic_error("rica: MPI gather: a node beyond the machine");
        const auto injected = r.get<std::uint64_t>();
        const auto delivered = r.get<std::uint64_t>();
        if (v < m.pes()) st.pe_injected[v] = injected, st.pe_delivered[v] = delivered;
        st.pe_forwarded[v] = r.get<std::uint64_t>();
        st.pe_blocked[v] = r.get<std::uint64_t>();
        for (port_t p = 0; p < m.ports(); ++p) st.link_packets[std::size_t{v} * m.ports() + p] = r.get<std::uint64_t>();
        if (tracing && v < m.pes()) m.ledger().traces()[v] = r.get_vector<TraceRow>();
        for (std::size_t j = 0; j < m.jobs().size(); ++j) {
          const node_t local = v < m.pes() ? m.jobs()[j].local(v) : no_node;
          if (local != no_node) m.jobs()[j].app->merge_pe_result(local, r.get_string());
        }
      }
      if (!last) continue;
      sums += r.get<NodeSums>();
      const auto stuck = r.get_vector<StuckBuffer>();
      m.ledger().stuck().insert(m.ledger().stuck().end(), stuck.begin(), stuck.end());
      const auto sc = r.get<Scalars>();
      ThreadStats t;
      t.delivered = sc.delivered;
      t.hops = sc.hops;
      t.duplicates = sc.duplicates;
      t.beyond_bitmap = sc.beyond_bitmap;
      t.measured = sc.measured;
      t.delivered_in_window = sc.delivered_in_window;
      t.lat_sum = sc.lat_sum;
      t.lat_max = sc.lat_max;
      t.net_lat_sum = sc.net_lat_sum;
      t.net_lat_max = sc.net_lat_max;
      t.hops_max = static_cast<unsigned>(sc.hops_max);
      t.sum_delivered_ids = sc.sum_delivered_ids;
      t.hop_sum = sc.hop_sum;
      t.hop_hist = r.get_vector<std::uint64_t>();
      t.lat_hist = r.get_vector<std::uint64_t>();
      t.net_lat_hist = r.get_vector<std::uint64_t>();
      t.class_hist = r.get_vector<std::uint64_t>();
      t.job = r.get_vector<ThreadStats::JobFigures>();
      m.thread_stats().push_back(std::move(t));
      total_cross += r.get<std::uint64_t>();
      wait[src] = r.get<double>();
      wall[src] = r.get<double>();
      rss[src] = r.get<std::uint64_t>();
    }
  }
  buf = {};
  std::sort(m.ledger().stuck().begin(), m.ledger().stuck().end(), [](const StuckBuffer& a, const StuckBuffer& b) {
    return a.v != b.v ? a.v < b.v : a.in < b.in;
  });
  cross_hops = total_cross;
  rss[0] = static_cast<std::uint64_t>(peak_rss_kb_now());  // rank 0's, every rank's figures taken in
  peak_rss_kb = rss;
  mpi_wait_share.assign(size, 0.0);
  for (unsigned k = 0; k < size; ++k) mpi_wait_share[k] = wall[k] > 0 ? std::min(1.0, wait[k] / wall[k]) : 0.0;
}

void Ranks::share_outcome(RunStats& st, std::string& error) {
  Writer w;
  if (rank == 0) {
    w.put(static_cast<std::uint8_t>(st.deadlock));
    w.put(static_cast<std::uint8_t>(st.conservation_ok));
    w.put(static_cast<std::uint8_t>(st.app_ok));
    w.put_string(st.deadlock_report);
    w.put_string(st.app_message);
    w.put_string(error);
  }
  std::uint64_t n = w.bytes.size();
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  w.bytes.resize(n);
  check(MPI_Bcast(w.bytes.data(), static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (rank == 0) return;
  Reader r{w.bytes.data(), w.bytes.data() + n};
  st.deadlock = r.get<std::uint8_t>() != 0;
  st.conservation_ok = r.get<std::uint8_t>() != 0;
  st.app_ok = r.get<std::uint8_t>() != 0;
  st.deadlock_report = r.get_string();
  st.app_message = r.get_string();
  error = r.get_string();
}

#endif

}  // namespace rica::detail
