#include "iba/extension_headers.hpp"

namespace ornic::iba {
namespace {

template <typename Header>
void encode_at(const Header& header, std::span<uint8_t> bytes, size_t offset) {
  header.encode(bytes.subspan(offset).template first<Header::kSize>());
}

template <typename Header>
Header decode_at(std::span<const uint8_t> bytes, size_t offset) {
  return Header::decode(bytes.subspan(offset).template first<Header::kSize>());
}

} // namespace

bool extension_header_present(const TransportHeaders& packet, ExtensionHeader header) {
  switch (header) {
  case ExtensionHeader::xrceth:
    return packet.xrceth.has_value();
  case ExtensionHeader::deth:
    return packet.deth.has_value();
  case ExtensionHeader::feth:
    return packet.feth.has_value();
  case ExtensionHeader::reth:
    return packet.reth.has_value();
  case ExtensionHeader::atomic_eth:
    return packet.atomic_eth.has_value();
  case ExtensionHeader::aeth:
    return packet.aeth.has_value();
  case ExtensionHeader::atomic_ack_eth:
    return packet.atomic_ack_eth.has_value();
  case ExtensionHeader::immdt:
    return packet.immdt.has_value();
  case ExtensionHeader::ieth:
    return packet.ieth.has_value();
  }
  return false;
}

unsigned extension_headers_present(const TransportHeaders& packet) {
  const auto bit = [](bool present, ExtensionHeader header) {
    return present ? 1u << static_cast<unsigned>(header) : 0u;
  };
  using enum ExtensionHeader;
  return bit(packet.xrceth.has_value(), xrceth) | bit(packet.deth.has_value(), deth) |
         bit(packet.feth.has_value(), feth) | bit(packet.reth.has_value(), reth) |
         bit(packet.atomic_eth.has_value(), atomic_eth) | bit(packet.aeth.has_value(), aeth) |
         bit(packet.atomic_ack_eth.has_value(), atomic_ack_eth) |
         bit(packet.immdt.has_value(), immdt) | bit(packet.ieth.has_value(), ieth);
}

void encode_extension_headers(const TransportHeaders& packet, const OpcodeInfo& info,
                              std::span<uint8_t> bytes) {
  using enum ExtensionHeader;
  if (info.carries(xrceth))
    encode_at(*packet.xrceth, bytes, info.offset_of(xrceth));
  if (info.carries(deth))
    encode_at(*packet.deth, bytes, info.offset_of(deth));
  if (info.carries(feth))
    encode_at(*packet.feth, bytes, info.offset_of(feth));
  if (info.carries(reth))
    encode_at(*packet.reth, bytes, info.offset_of(reth));
  if (info.carries(atomic_eth))
    encode_at(*packet.atomic_eth, bytes, info.offset_of(atomic_eth));
  if (info.carries(aeth))
    encode_at(*packet.aeth, bytes, info.offset_of(aeth));
  if (info.carries(atomic_ack_eth))
    encode_at(*packet.atomic_ack_eth, bytes, info.offset_of(atomic_ack_eth));
  if (info.carries(immdt))
    encode_at(*packet.immdt, bytes, info.offset_of(immdt));
  if (info.carries(ieth))
    encode_at(*packet.ieth, bytes, info.offset_of(ieth));
}

void decode_extension_headers(std::span<const uint8_t> bytes, const OpcodeInfo& info,
                              TransportHeaders& packet) {
  using enum ExtensionHeader;
  if (info.carries(xrceth))
    packet.xrceth = decode_at<Xrceth>(bytes, info.offset_of(xrceth));
  if (info.carries(deth))
    packet.deth = decode_at<Deth>(bytes, info.offset_of(deth));
  if (info.carries(feth))
    packet.feth = decode_at<Feth>(bytes, info.offset_of(feth));
  if (info.carries(reth))
    packet.reth = decode_at<Reth>(bytes, info.offset_of(reth));
  if (info.carries(atomic_eth))
    packet.atomic_eth = decode_at<AtomicEth>(bytes, info.offset_of(atomic_eth));
  if (info.carries(aeth))
    packet.aeth = decode_at<Aeth>(bytes, info.offset_of(aeth));
  if (info.carries(atomic_ack_eth))
    packet.atomic_ack_eth = decode_at<AtomicAckEth>(bytes, info.offset_of(atomic_ack_eth));
  if (info.carries(immdt))
    packet.immdt = decode_at<ImmDt>(bytes, info.offset_of(immdt));
  if (info.carries(ieth))
    packet.ieth = decode_at<Ieth>(bytes, info.offset_of(ieth));
}

} // namespace ornic::iba
