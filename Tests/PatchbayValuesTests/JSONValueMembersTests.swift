import PatchbayValues
import Testing

/// Reading a JSON value by what it holds, as the Hue and Homebridge-websocket plugins do.
@Suite struct JSONValueMembersTests {
  @Test func membersAreReadByKindAndARepeatedKeyKeepsTheLast() throws {
    let value = try #require(
      JSONValue.parse(#"{"on":true,"bri":200,"hue":21.5,"name":"desk","ids":["1"],"x":1,"x":2}"#))
    let members = try #require(value.objectValue)
    #expect(members["on"]?.boolValue == true)
    #expect(members["bri"]?.integerValue == 200)
    #expect(members["hue"]?.integerValue == nil && members["hue"]?.doubleValue == 21.5)
    #expect(members["name"]?.stringValue == "desk")
    #expect(members["ids"]?.arrayValue == [.string("1")])
    #expect(members["x"] == .integer(2))
    #expect(JSONValue.number(200).integerValue == 200)
    #expect(JSONValue.string("1").integerValue == nil && JSONValue.bool(true).doubleValue == nil)
  }

  @Test func aSortedObjectPrintsItsKeysInOrder() {
    let object = JSONValue.sortedObject(["topic": .string("set"), "payload": .sortedObject(["value": .number(21.5)])])
    #expect(object.description == #"{"payload":{"value":21.5},"topic":"set"}"#)
  }
}
