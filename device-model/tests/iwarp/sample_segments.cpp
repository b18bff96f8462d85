#include "sample_segments.hpp"

#include <numeric>

namespace ornic::iwarp::testing {

namespace {

DdpHeader tagged(uint32_t stag, uint64_t to, bool last) {
  DdpHeader ddp;
  ddp.tagged = true;
  ddp.last = last;
  ddp.stag = stag;
  ddp.tagged_offset = to;
  return ddp;
}

DdpHeader untagged(uint32_t queue, uint32_t msn, uint32_t offset, bool last) {
  DdpHeader ddp;
  ddp.tagged = false;
  ddp.last = last;
  ddp.queue_number = queue;
  ddp.msn = msn;
  ddp.message_offset = offset;
  return ddp;
}

} // namespace

std::vector<SampleSegment> sample_segments() {
  std::vector<SampleSegment> samples(9);
  auto fill = [](SampleSegment& sample, DdpHeader ddp, RdmapOpcode opcode, size_t payload) {
    sample.segment.ddp = ddp;
    sample.segment.rdmap.opcode = static_cast<uint8_t>(opcode);
    sample.segment.opcode = opcode;
    sample.payload_storage.resize(payload);
    std::iota(sample.payload_storage.begin(), sample.payload_storage.end(),
              static_cast<uint8_t>(payload));
  };
  fill(samples[0], tagged(0x1234'5601, 0x7f00'0000'1000, false), RdmapOpcode::write, 64);
  fill(samples[1], tagged(0x1234'5601, 0x7f00'0000'1040, true), RdmapOpcode::write, 37);
  fill(samples[2], untagged(kQueueReadRequest, 1, 0, true), RdmapOpcode::read_request, 0);
  samples[2].segment.read_request = ReadRequest{.sink_stag = 0x0000'4201,
                                                .sink_to = 0x5555'0000,
                                                .size = 100,
                                                .source_stag = 0x0000'9902,
                                                .source_to = 0x6666'0010};
  fill(samples[3], tagged(0x0000'4201, 0x5555'0000, true), RdmapOpcode::read_response, 100);
  fill(samples[4], untagged(kQueueSend, 1, 0, true), RdmapOpcode::send, 21);
  fill(samples[5], untagged(kQueueSend, 2, 0, true), RdmapOpcode::send_invalidate, 8);
  samples[5].segment.invalidate_stag = 0x0bad'5701;
  fill(samples[6], untagged(kQueueSend, 3, 0, true), RdmapOpcode::send_se, 3);
  fill(samples[7], untagged(kQueueSend, 4, 0, true), RdmapOpcode::send_se_invalidate, 40);
  samples[7].segment.invalidate_stag = 0x0bad'5702;
  // A Terminate for a Write with a bad STag, copying the first sample's DDP header.
  fill(samples[8], untagged(kQueueTerminate, 1, 0, true), RdmapOpcode::terminate, 0);
  TerminateMessage terminate;
  terminate.cause = cause::ddp_tagged_invalid_stag;
  terminate.segment_length_valid = true;
  terminate.segment_length = static_cast<uint16_t>(kDdpTaggedHeaderSize + 64);
  terminate.ddp_header.resize(kDdpTaggedHeaderSize);
  DdpHeader copied = samples[0].segment.ddp;
  copied.ulp_control = encode_rdmap_control(samples[0].segment.rdmap);
  store_ddp_header(terminate.ddp_header, copied);
  samples[8].segment.terminate = terminate;
  for (SampleSegment& sample : samples)
    sample.segment.payload = sample.payload_storage;
  return samples;
}

} // namespace ornic::iwarp::testing
