package webhooks

import "net/netip"

// forbidden are the networks no delivery connects to outside the local
// run: private (RFC 1918, unique local), loopback, link-local (the cloud
// metadata service at 169.254.169.254 among them), shared address space
// (carrier-grade NAT), "this network", benchmarking, multicast and
// reserved ranges, and AWS's IPv6 metadata address.
var forbidden = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "64:ff9b::/96", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
		"fd00:ec2::254/128",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// ForbiddenIP reports whether a delivery may not connect to ip outside
// the local run: see forbidden. An IPv4-mapped IPv6 address is judged as
// its IPv4 address, and a zoned one (fe80::1%eth0, ::1%lo) as the
// address without its zone: Prefix.Contains never matches a zoned
// address, yet the kernel dials it.
func ForbiddenIP(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() {
		return true
	}
	for _, p := range forbidden {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
