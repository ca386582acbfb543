import HueProtocol
import Testing

@testable import HuePlugin

@Suite struct GroupMembershipTests {
  let model: BridgeModel = {
    var model = BridgeModel()
    for id in ["1", "2", "3", "4"] { model.lights[id] = HueLightState(on: false) }
    model.groups = [
      "1": HueGroup(name: "Living", lights: ["1", "2", "3"]), "5": HueGroup(name: "Desk", lights: ["2", "4"]),
    ]
    model.wasRead = true
    return model
  }()

  func group(_ source: HueConfig.Source, _ lights: [String] = []) -> HueConfig.Group {
    HueConfig.Group(
      name: "g", source: source, members: lights.map { HueConfig.Member(lightID: $0, name: "light\($0)") },
      exposeLights: false)
  }

  @Test func bridgeGroupsByIdOrNameBringTheirMembers() {
    let byID = GroupMembership(group: group(.bridgeGroup(id: "1")), model: model)
    #expect(byID.members == ["1", "2", "3"])
    #expect(byID.bridgeGroup(members: ["1", "2", "3"]) == "1")
    let byName = GroupMembership(group: group(.bridgeGroupNamed("Desk")), model: model)
    #expect(byName.members == ["2", "4"])
    #expect(byName.bridgeGroup(members: ["4", "2"]) == "5")
    #expect(GroupMembership(group: group(.bridgeGroupNamed("Attic")), model: model).members == nil)
    #expect(GroupMembership(group: group(.bridgeGroup(id: "0")), model: BridgeModel()).members == nil)
  }

  @Test func aPatchbaySideGroupUsesABridgeGroupWithExactlyItsMembers() {
    #expect(GroupMembership(group: group(.lights, ["4", "2"]), model: model).bridgeGroup(members: ["4", "2"]) == "5")
    #expect(GroupMembership(group: group(.lights, ["1", "4"]), model: model).bridgeGroup(members: ["1", "4"]) == nil)
    let all = ["1", "2", "3", "4"]
    #expect(GroupMembership(group: group(.lights, all), model: model).bridgeGroup(members: all) == "0")
  }

  @Test func aBridgeGroupWithOtherMembersThanConfiguredIsNotUsed() {
    let membership = GroupMembership(group: group(.bridgeGroup(id: "1"), ["1", "2"]), model: model)
    #expect(membership.members == ["1", "2"])
    #expect(membership.bridgeGroup(members: ["1", "2"]) == nil)
    #expect(membership.mismatchedBridgeGroup(members: ["1", "2"]) == "1")
    #expect(membership.name(of: "7") == "light7")
  }
}
