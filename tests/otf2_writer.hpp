#pragma once
// A small OTF2 writer for the replay tests (tests/test_replay.cpp): archives written directly with
// the OTF2 API, not by rica's recorder, so the reader is tested on foreign traces. One location per
// rank, MPI_COMM_WORLD as comm 0; each call is Enter(region) record Leave(region) unless `bare`.

#include <otf2/otf2.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace rica::test {

class Otf2Writer {
 public:
  Otf2Writer(std::string dir, std::uint32_t ranks, bool bare = false) : dir_(std::move(dir)), ranks_(ranks), bare_(bare) {
    std::filesystem::remove_all(dir_);
    calls_.resize(ranks);
  }
  /// Rank r's next call: `region` around one or more records, starting `gap` ns after its previous call.
  struct Rec {
    enum Kind { send, isend, isend_complete, recv, irecv_request, irecv, coll } kind;
    std::uint32_t peer = 0, tag = 0;
    std::uint64_t bytes = 0, req = 0;
  };
  Otf2Writer& call(std::uint32_t r, const std::string& region, std::vector<Rec> recs, std::uint64_t gap = 100,
                   std::uint64_t length = 10) {
    calls_.at(r).push_back({region, std::move(recs), gap, length});
    return *this;
  }
  // Shorthands.
  Otf2Writer& send(std::uint32_t r, std::uint32_t dst, std::uint32_t tag, std::uint64_t bytes, const char* region = "MPI_Send",
                   std::uint64_t gap = 100) {
    return call(r, region, {{Rec::send, dst, tag, bytes, 0}}, gap);
  }
  Otf2Writer& recv(std::uint32_t r, std::uint32_t src, std::uint32_t tag, std::uint64_t bytes, std::uint64_t gap = 100) {
    return call(r, "MPI_Recv", {{Rec::recv, src, tag, bytes, 0}}, gap);
  }
  Otf2Writer& isend(std::uint32_t r, std::uint32_t dst, std::uint32_t tag, std::uint64_t bytes, std::uint64_t req) {
    return call(r, "MPI_Isend", {{Rec::isend, dst, tag, bytes, req}});
  }
  Otf2Writer& irecv(std::uint32_t r, std::uint64_t req) { return call(r, "MPI_Irecv", {{Rec::irecv_request, 0, 0, 0, req}}); }
  /// A collective call: `op` an OTF2_CollectiveOp, `root` ~0u for none.
  Otf2Writer& collective(std::uint32_t r, const char* region, std::uint32_t op, std::uint64_t bytes,
                         std::uint32_t root = ~0u) {
    return call(r, region, {{Rec::coll, root, op, bytes, 0}});
  }
  /// MPI_Wait(all) completing: sends by request, receives by (request, source, tag, bytes).
  Otf2Writer& wait(std::uint32_t r, std::vector<Rec> completions) { return call(r, "MPI_Waitall", std::move(completions)); }

  /// Writes the archive; returns the anchor file's path.
  std::string write() {
    OTF2_Archive* a = OTF2_Archive_Open(dir_.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) throw std::runtime_error("OTF2_Archive_Open failed");
    static OTF2_FlushCallbacks flush = {
        [](void*, OTF2_FileType, OTF2_LocationRef, void*, bool) -> OTF2_FlushType { return OTF2_FLUSH; }, nullptr};
    OTF2_Archive_SetFlushCallbacks(a, &flush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, "rica test writer");
    OTF2_Archive_OpenEvtFiles(a);
    std::map<std::string, std::uint32_t> regions;
    std::uint64_t end = 0;
    std::vector<std::uint64_t> events(ranks_, 0);
    for (std::uint32_t r = 0; r < ranks_; ++r) {
      OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, r);
      std::uint64_t t = 1000;
      for (const Call& c : calls_[r]) {
        t += c.gap;
        const auto reg = regions.emplace(c.region, static_cast<std::uint32_t>(regions.size())).first->second;
        if (!bare_) OTF2_EvtWriter_Enter(w, nullptr, t, reg), ++events[r];
        for (const Rec& x : c.recs) {
          switch (x.kind) {
            case Rec::send: OTF2_EvtWriter_MpiSend(w, nullptr, t, x.peer, 0, x.tag, x.bytes); break;
            case Rec::isend: OTF2_EvtWriter_MpiIsend(w, nullptr, t, x.peer, 0, x.tag, x.bytes, x.req); break;
            case Rec::isend_complete: OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, x.req); break;
            case Rec::recv: OTF2_EvtWriter_MpiRecv(w, nullptr, t, x.peer, 0, x.tag, x.bytes); break;
            case Rec::irecv_request: OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, x.req); break;
            case Rec::irecv: OTF2_EvtWriter_MpiIrecv(w, nullptr, t, x.peer, 0, x.tag, x.bytes, x.req); break;
            case Rec::coll:  // tag: the OTF2_CollectiveOp, peer: the root (~0u: none), bytes: sent = received
              OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t);
              OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t + 1, static_cast<OTF2_CollectiveOp>(x.tag), 0, x.peer,
                                              x.bytes, x.bytes);
              ++events[r];
              break;
          }
          ++events[r];
        }
        t += c.length;
        if (!bare_) OTF2_EvtWriter_Leave(w, nullptr, t, reg), ++events[r];
      }
      end = std::max(end, t);
      OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, end, OTF2_UNDEFINED_TIMESTAMP);
    std::uint32_t s = 0;
    auto str = [&](const std::string& x) {
      OTF2_GlobalDefWriter_WriteString(g, s, x.c_str());
      return s++;
    };
    const auto empty = str("");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, str("machine"), str("node"), OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (const auto& [name, id] : regions) {
      const auto n = str(name);
      OTF2_GlobalDefWriter_WriteRegion(g, id, n, n, empty, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                       OTF2_REGION_FLAG_NONE, empty, 0, 0);
    }
    for (std::uint32_t r = 0; r < ranks_; ++r)
      OTF2_GlobalDefWriter_WriteLocationGroup(g, r, str("rank " + std::to_string(r)), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                              OTF2_UNDEFINED_LOCATION_GROUP);
    for (std::uint32_t r = 0; r < ranks_; ++r)
      OTF2_GlobalDefWriter_WriteLocation(g, r, str("thread"), OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r);
    std::vector<std::uint64_t> all(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r) all[r] = r;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    ranks_, all.data());
    OTF2_GlobalDefWriter_WriteGroup(g, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    ranks_, all.data());
    OTF2_GlobalDefWriter_WriteComm(g, 0, str("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Archive_Close(a);
    return dir_ + "/traces.otf2";
  }

 private:
  struct Call {
    std::string region;
    std::vector<Rec> recs;
    std::uint64_t gap, length;
  };
  std::string dir_;
  std::uint32_t ranks_;
  bool bare_;
  std::vector<std::vector<Call>> calls_;
};

}  // namespace rica::test
