import PatchbayTestSupport
import Testing

/// Every test whose Avahi clients (advertisers, browsers) run in this process: libdbus reads the
/// bus address once per process, so they share `AvahiUnderTest.inProcessBusSocket` and run one
/// at a time (the trait covers the nested suites).
@Suite(
  .serialized,
  .disabled(if: AvahiUnderTest.unavailable != nil, "\(AvahiUnderTest.unavailable ?? ""): cannot run avahi-daemon"))
struct AvahiInProcessTests {}
