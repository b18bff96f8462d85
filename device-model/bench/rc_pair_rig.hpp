// The RC pair the message-rate benchmarks drive: two NICs with memfd-backed guest memory
// on an in-memory wire (test::RdmaPair), `qps` connected RC QP pairs between them, one CQ
// per NIC, the provider's part played by the benchmark (WQEs written to the SQ, one
// doorbell per QP and batch, CQEs polled). Every batch checks each completion and the
// bytes that arrived at the peer, so a broken path fails instead of being measured.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rdma_pair.hpp"

namespace ornic::bench {

// The rig reports its own failures (an admin command refused, a pair that never goes
// quiet) through GoogleTest, outside any test: the failed parts of the ad hoc result.
int rig_failures();

class RcPairRig {
public:
  static constexpr uint32_t kBatch = 1024; // WRITEs per batch, unless more QPs than that

  // `batch`: the most WRITEs one write_batch() posts, which sizes the SQs and the CQs.
  RcPairRig(uint8_t path_mtu, unsigned qps = 1, uint32_t batch = kBatch);

  // Posts `count` WRITEs of `length` bytes, the k-th on QP k % qps from and to offset
  // k * length of the nodes' buffers, ringing each QP's doorbell once; runs the pair until
  // quiet; polls the completions. Empty on success, else what went wrong.
  std::string write_batch(uint32_t count, uint32_t length);

  // A new pattern in the first `bytes` of the sender's buffer: a stamp of this batch in
  // every 64-byte piece, so data left over from an earlier batch never passes the check.
  void stamp(size_t bytes);

  unsigned qps() const { return static_cast<unsigned>(senders_.size()); }
  uint64_t retransmits() const { return pair_.a.counter(ORNIC_CNT_RETRANSMITS); }
  uint64_t packets_sent() const { return pair_.a.counter(ORNIC_CNT_TX_RDMA_PACKETS); }
  uint64_t acks_received() const { return pair_.b.counter(ORNIC_CNT_TX_RDMA_PACKETS); }

private:
  test::RdmaPair pair_;
  std::vector<test::Qp> senders_, receivers_;
  uint64_t next_wr_id_ = 1;
  uint64_t batch_ = 0;
};

} // namespace ornic::bench
