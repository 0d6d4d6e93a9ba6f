import Testing
@testable import TodoModel

/// sync.md §5.6: the rule table and its worked example (base `{text: "a", complete: false}`).
@Suite struct ThreeWayMergeTests {
    static let base: [String: JSONValue] = ["text": "a", "complete": false]

    @Test func disjointChangesMerge() {
        #expect(ThreeWayMerge.merge(base: Self.base, client: ["text": "b", "complete": false], server: ["text": "a", "complete": true])
                == .merged(fields: ["text": "b", "complete": true], fromClient: ["text"], fromServer: ["complete"]))
    }

    @Test func identicalChangesAreNoClash() {
        #expect(ThreeWayMerge.merge(base: Self.base, client: ["text": "b", "complete": false], server: ["text": "b", "complete": true])
                == .merged(fields: ["text": "b", "complete": true], fromClient: [], fromServer: ["complete"]))
    }

    @Test func removingAFieldTheServerChangedClashes() {
        #expect(ThreeWayMerge.merge(base: Self.base, client: ["text": "b"], server: ["text": "a", "complete": true]) == .clash(["complete"]))
    }

    @Test func sameFieldChangedDifferentlyClashes() {
        #expect(ThreeWayMerge.merge(base: Self.base, client: ["text": "b", "complete": false], server: ["text": "c", "complete": false])
                == .clash(["text"]))
    }

    @Test func nullEqualsAbsentAndRemovalsMerge() {
        // The client removed `note`; the server left it alone: the removal wins and no null is kept.
        #expect(ThreeWayMerge.merge(base: ["note": "n", "text": "a"], client: ["text": "a"], server: ["note": "n", "text": "a", "x": .null])
                == .merged(fields: ["text": "a"], fromClient: ["note"], fromServer: []))
        // Numbers compare as doubles: 1 and 1.0 are no change.
        #expect(ThreeWayMerge.merge(base: ["p": 1], client: ["p": 1.0], server: ["p": 2])
                == .merged(fields: ["p": 2], fromClient: [], fromServer: ["p"]))
    }

    @Test func anEmptyBaseMakesEveryDifferenceAClash() {
        // Independent creations of one id (§5.6.2): fields present on both sides with different values clash.
        #expect(ThreeWayMerge.merge(base: [:], client: ["text": "a", "note": "n"], server: ["text": "a"])
                == .merged(fields: ["text": "a", "note": "n"], fromClient: ["note"], fromServer: []))
        #expect(ThreeWayMerge.merge(base: [:], client: ["text": "a"], server: ["text": "b"]) == .clash(["text"]))
    }
}
