// Feeds arbitrary bytes to the RoCEv2 frame parser. Whatever parses must also survive a
// round trip: building the parsed description and payload again gives a frame that parses
// to the same description and payload (the builder and parser agree on every field).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "roce/builder.hpp"
#include "roce/parser.hpp"

using namespace ornic::roce;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "roce fuzzer: %s\n", what);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ParsedPacket parsed;
  if (parse_frame(std::span<const uint8_t>(data, size), parsed) != ParseError::ok)
    return 0;

  std::vector<uint8_t> rebuilt;
  const BuildError build_error = build_frame(parsed.description, parsed.payload, rebuilt);
  if (build_error != BuildError::ok)
    fail("a parsed packet does not build again");

  ParsedPacket reparsed;
  if (parse_frame(rebuilt, reparsed) != ParseError::ok)
    fail("a rebuilt frame does not parse");
  if (!(reparsed.description == parsed.description))
    fail("round trip changed the description");
  if (!std::equal(reparsed.payload.begin(), reparsed.payload.end(), parsed.payload.begin(),
                  parsed.payload.end()))
    fail("round trip changed the payload");
  return 0;
}
