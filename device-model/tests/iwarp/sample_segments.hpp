// One segment of every RDMAP opcode (Write, Read Request, Read Response, the four Sends and a
// Terminate that copies the headers of the segment it terminates), shared by the unit tests
// and the sample stream writer.
#pragma once

#include <cstdint>
#include <vector>

#include "iwarp/segment.hpp"

namespace ornic::iwarp::testing {

struct SampleSegment {
  Segment segment;
  std::vector<uint8_t> payload_storage; // what segment.payload points into
};

// Built fresh on each call; the payload spans point into each element's own storage, so
// keep the vector alive (and do not copy its elements) while using them.
std::vector<SampleSegment> sample_segments();

} // namespace ornic::iwarp::testing
