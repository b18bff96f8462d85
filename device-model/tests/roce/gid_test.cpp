#include <gtest/gtest.h>

#include "roce/gid.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

TEST(RoceGid, Ipv4MappedRoundTrip) {
  const Gid gid = gid_from_ipv4({192, 168, 7, 9});
  const Gid expected = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 7, 9};
  EXPECT_EQ(gid, expected);
  EXPECT_TRUE(is_ipv4_mapped(gid));
  EXPECT_EQ(gid_family(gid), IpFamily::ipv4);
  EXPECT_EQ(ipv4_from_gid(gid), (Ipv4Address{192, 168, 7, 9}));
  EXPECT_EQ(gid_to_string(gid), "::ffff:192.168.7.9");
}

TEST(RoceGid, Ipv6GidsSelectIpv6) {
  const Gid link_local = *gid_from_string("fe80::1:2");
  EXPECT_FALSE(is_ipv4_mapped(link_local));
  EXPECT_EQ(gid_family(link_local), IpFamily::ipv6);
  EXPECT_FALSE(ipv4_from_gid(link_local).has_value());
  EXPECT_EQ(gid_to_string(link_local), "fe80::1:2");
  EXPECT_EQ(ipv6_from_gid(link_local), link_local);
  // IPv4-compatible (::a.b.c.d) and all-zero GIDs are not IPv4-mapped.
  EXPECT_EQ(gid_family(*gid_from_string("::10.0.0.1")), IpFamily::ipv6);
  EXPECT_EQ(gid_family(Gid{}), IpFamily::ipv6);
}

TEST(RoceGid, TextForms) {
  EXPECT_EQ(gid_from_string("10.1.2.3"), gid_from_ipv4({10, 1, 2, 3}));
  EXPECT_EQ(gid_from_string("::ffff:10.1.2.3"), gid_from_ipv4({10, 1, 2, 3}));
  EXPECT_FALSE(gid_from_string("").has_value());
  EXPECT_FALSE(gid_from_string("10.1.2").has_value());
  EXPECT_FALSE(gid_from_string("fe80::1::2").has_value());
  EXPECT_FALSE(gid_from_string(std::string_view("10.0.0.1\0junk", 13)).has_value());
}

} // namespace
} // namespace ornic::roce
