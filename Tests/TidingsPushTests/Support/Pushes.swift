import Foundation
import TidingsPush

/// A 32-byte device token in hexadecimal, distinct per `number`.
func deviceToken(_ number: Int) -> String {
    String(format: "%064x", number)
}

/// A badge-only alert push.
func badgePush(token: String, count: Int = 3) -> APNsPush {
    APNsPush(
        token: token, pushType: .alert, priority: .powerConsiderate, collapseID: "badge",
        payload: Array(#"{"aps":{"badge":\#(count)}}"#.utf8)
    )
}
