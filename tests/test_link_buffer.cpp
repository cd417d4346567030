// LinkBuffer: word-counted capacity (virtual cut-through), FIFO order, and the wake-up handshake
// between a producer that found no room and the consumer that frees it, across two threads.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "rica/link_buffer.hpp"

namespace rica {
namespace {

Packet packet(std::uint32_t seq, unsigned words) {
  Packet p;
  p.seq = seq;
  p.words = static_cast<std::uint8_t>(words);
  return p;
}

TEST(LinkBuffer, CapacityIsCountedInWords) {
  LinkBuffer b(8, 2);  // 8 words
  LinkBuffer::Credit c;
  ASSERT_TRUE(b.fits(c, 3));
  b.push(c, packet(0, 3));
  ASSERT_TRUE(b.fits(c, 3));
  b.push(c, packet(1, 3));
  EXPECT_TRUE(b.fits(c, 2));   // 6 of 8 words used: a 2-word packet fits
  EXPECT_FALSE(b.fits(c, 3));  // a 3-word packet does not (cut-through: whole packet or nothing)
  EXPECT_EQ(b.words_held(c), 6u);
  EXPECT_EQ(b.front().seq, 0u);
  EXPECT_FALSE(b.pop_and_check());  // nobody waiting
  EXPECT_TRUE(b.fits(c, 3));        // the producer sees the freed words
  EXPECT_EQ(b.words_held(c), 3u);
}

TEST(LinkBuffer, WaitingProducerIsReportedByTheNextPop) {
  LinkBuffer b(4, 2);
  LinkBuffer::Credit c;
  b.push(c, packet(0, 4));
  ASSERT_FALSE(b.fits(c, 2));
  EXPECT_FALSE(b.wait_for_room(c, 2));  // registers: no room yet
  EXPECT_TRUE(b.pop_and_check());       // the consumer must wake the producer
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.fits(c, 4));            // the whole capacity is free again
}

TEST(LinkBuffer, TwoThreadsStreamInOrderWithoutLossOrDuplicates) {
  LinkBuffer b(32, 2);
  constexpr std::uint32_t n = 200000;
  std::atomic<std::uint64_t> wakeups{0};
  std::thread consumer([&] {
    std::uint32_t next = 0;
    while (next < n) {
      if (b.empty()) continue;
      ASSERT_EQ(b.front().seq, next);
      ASSERT_EQ(b.front().words, 2u + next % 3);
      if (b.pop_and_check()) wakeups.fetch_add(1);
      ++next;
    }
  });
  LinkBuffer::Credit c;
  std::uint64_t waits = 0;
  for (std::uint32_t i = 0; i < n;) {
    const unsigned w = 2 + i % 3;
    if (b.fits(c, w) || b.wait_for_room(c, w)) {
      b.push(c, packet(i, w));
      ++i;
    } else {
      ++waits;
    }
  }
  consumer.join();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.words_held(c), 0u);
  EXPECT_LE(wakeups.load(), waits);  // every wake-up answers a registration
}

}  // namespace
}  // namespace rica
