import Testing

@testable import PatchbayHub

#if canImport(Glibc)
  import Glibc
#endif

/// Who is on the other end of a control connection: any doubt about the lineage refuses.
@Suite struct ControlPeerTests {
  @Test func aCommandNameThatIsNotUTF8StillGivesTheParent() {
    // prctl(PR_SET_NAME, "\xff\xfe\xfd"): the name is any bytes, ')' and spaces included.
    let stat: [UInt8] = Array("4242 (".utf8) + [0xff, 0xfe, 0xfd, 0x29, 0x20, 0x28] + Array(") S 17 4242 4242 0".utf8)
    #expect(ControlPeer.parent(inStat: stat) == 17)
    #expect(ControlPeer.parent(inStat: Array("4242 (x) S".utf8)) == nil)
    #expect(ControlPeer.parent(inStat: Array("4242 (x) S 1x 1".utf8)) == nil)
    #expect(ControlPeer.parent(inStat: Array("no parenthesis".utf8)) == nil)
  }

  @Test func aChainThroughTheHubIsADescendant() {
    let parents: [Int32: Int32] = [30: 20, 20: 10, 10: 5, 5: 1]
    #expect(ControlPeer.lineage(of: 30, hub: 10) { parents[$0] } == .descendant([30, 20]))
    #expect(ControlPeer.lineage(of: 30, hub: 99) { parents[$0] } == .outsider)
  }

  /// The attack of issue 41: a grandchild whose parent's /proc entry cannot be read was taken
  /// for an outside caller. Now an unreadable link partway up is doubt, and doubt refuses.
  @Test func anUnreadableLinkPartwayUpIsRefused() {
    let parents: [Int32: Int32] = [30: 20, 10: 5, 5: 1]  // 20 cannot be read
    #expect(ControlPeer.lineage(of: 30, hub: 10) { parents[$0] } == .vanished(30))
    #expect(ControlPeer.lineage(of: 31, hub: 10) { parents[$0] } == .vanished(31))
  }

  /// A parent that ended while the chain was read: the orphan has its new parent (a subreaper)
  /// on the next walk, and that walk decides.
  @Test func aParentThatEndsDuringTheWalkIsWalkedAgain() {
    var walks = 0
    let decided = ControlPeer.lineage(of: 30, hub: 10) { pid in
      if pid == 30 { walks += 1 }
      switch (pid, walks) {
      case (30, 1): return 20
      case (20, 1): return nil  // ended meanwhile
      case (30, _): return 10  // re-parented to the hub, a subreaper
      default: return nil
      }
    }
    #expect(decided == .descendant([30]))
  }

  @Test func aCycleOrEndlessChainIsRefused() {
    #expect(ControlPeer.lineage(of: 30, hub: 10) { $0 == 30 ? 31 : 30 } == .vanished(30))
  }

  /// Issue 45.11: a peer gone before it could be checked is only worth a warning when it had
  /// sent a request; a second hub's probe connects and closes without writing.
  @Test func onlyAPeerThatWroteCountsAsHavingSentARequest() throws {
    var ends: [Int32] = [0, 0]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
    defer { close(ends[0]) }
    #expect(!ControlServer.hasSentData(ends[0]))  // connected, nothing written: never blocks
    let request = Array(#"{"command":"status"}"#.utf8) + [0x0A]
    #expect(write(ends[1], request, request.count) == request.count)
    #expect(ControlServer.hasSentData(ends[0]))
    #expect(ControlServer.hasSentData(ends[0]))  // peeked, not consumed
    close(ends[1])
    #expect(ControlServer.hasSentData(ends[0]))  // written, then gone: still sent

    var probe: [Int32] = [0, 0]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &probe) == 0)
    defer { close(probe[0]) }
    close(probe[1])
    #expect(!ControlServer.hasSentData(probe[0]))  // closed without writing: end of file
  }

  /// A live process without a /proc entry here (another user namespace under ProtectProc=invisible:
  /// patchbay-web, the unit's ExecReload) is an outsider; one that is really gone is not.
  @Test func aLivePeerHiddenFromProcIsInvisibleAndAGoneOneIsNot() {
    #expect(ControlPeer.isInvisible(getpid()) { _ in nil })
    #expect(!ControlPeer.isInvisible(getpid()))
    #expect(!ControlPeer.isInvisible(pid_t(Int32.max - 1)) { _ in nil })
    #expect(!ControlPeer.isInvisible(1) { _ in nil })
  }
}
