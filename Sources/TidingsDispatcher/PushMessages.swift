import FoundationEssentials
import TidingsDomain
import TidingsJSON
import TidingsPush

/// What each kind of push looks like on each service: pure functions of a
/// claimed push, so the wire format is tested without a network. Payloads
/// stay far below the 4 KB both services take: a title and body are cut
/// to 178 characters each when queued (migration 0020).
///
/// - badge: APNs `apns-push-type: alert` carrying only `aps.badge` (no
///   alert, no sound), priority 5, collapse id per user, so a newer count
///   replaces an older one not yet shown; FCM a data message at normal
///   priority (`tidings_kind: badge`, `badge`), collapse key per user: an
///   Android app applies it in its messaging service without opening,
///   which notification messages would not let it do in the background.
/// - sync: APNs `content-available: 1`, `apns-push-type: background`,
///   priority 5, with the watch and change ids and the feed `cursor` of
///   the user's newest change; FCM a data message at normal priority with
///   the same.
/// - alert: APNs a visible alert (title: the watch's name, body: what
///   changed, `thread-id` per watch) with the badge, priority 10; FCM a
///   data message at high priority with title, body and badge, which the
///   app shows as a notification (a data message reaches the app's own
///   code in every state, so it can also set the badge; see decision 0024).
/// - Web Push (decision 0042): one JSON object for every kind, the FCM data
///   message's fields with JSON types (`kind`, `badge` as a number,
///   `watch_id`, `change_id`, `cursor`, `title`, `body`), encrypted for the
///   browser; the service worker shows the alert or sets the badge. Urgency
///   `low` for badge, `normal` for sync, `high` for alert; badge messages
///   carry the `Topic` `tidings-badge`, so a push service holding an older
///   count for an offline browser keeps only the newest; TTL a day.
enum PushMessages {
    static func apns(_ push: ClaimedPush) -> APNsPush {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("aps")
        json.beginObject()
        switch push.kind {
        case .badge:
            json.key("badge")
            json.value(push.badge ?? 0)
        case .sync:
            json.key("content-available")
            json.value(1)
        case .alert:
            json.key("alert")
            json.beginObject()
            json.key("title")
            json.value(push.title ?? "")
            json.key("body")
            json.value(push.body ?? "")
            json.endObject()
            if let badge = push.badge {
                json.key("badge")
                json.value(badge)
            }
            json.key("sound")
            json.value("default")
            if let watchID = push.watchID {
                json.key("thread-id")
                json.value("watch-\(watchID.canonicalString)")
            }
        }
        json.endObject()
        if push.kind != .badge {
            json.key("tidings")
            writeFields(push, display: false, to: &json)
        }
        json.endObject()
        return APNsPush(
            token: push.deviceToken,
            pushType: push.kind == .sync ? .background : .alert,
            priority: push.kind == .alert ? .immediate : .powerConsiderate,
            collapseID: push.kind == .badge ? "tidings-badge-\(push.userID.canonicalString)" : nil,
            id: push.id,
            payload: json.bytes
        )
    }

    static func fcm(_ push: ClaimedPush) -> FCMPush {
        var data = ["tidings_kind": push.kind.rawValue]
        if let badge = push.badge { data["badge"] = String(badge) }
        if let watchID = push.watchID { data["watch_id"] = watchID.canonicalString }
        if let changeID = push.changeID { data["change_id"] = changeID.canonicalString }
        if let cursor = push.cursor { data["cursor"] = cursor.token }
        if push.kind == .alert {
            data["title"] = push.title ?? ""
            data["body"] = push.body ?? ""
        }
        return FCMPush(
            token: push.deviceToken,
            data: data,
            priority: push.kind == .alert ? .high : .normal,
            collapseKey: push.kind == .badge ? "tidings-badge" : nil
        )
    }

    /// How long a push service keeps a Web Push message for a browser that
    /// is offline: a day, as a badge or change older than that is stale.
    static let webTimeToLive = 86_400
    /// `Topic` of badge messages: at most 32 base64url characters.
    static let webBadgeTopic = "tidings-badge"

    /// The Web Push message of `push` for `subscription`'s keys (already
    /// opened and decoded by the dispatcher).
    static func web(_ push: ClaimedPush, userAgentPublicKey: [UInt8], authSecret: [UInt8]) -> WebPush {
        let urgency: WebPush.Urgency =
            switch push.kind {
            case .badge: .low
            case .sync: .normal
            case .alert: .high
            }
        return WebPush(
            endpoint: push.deviceToken,
            userAgentPublicKey: userAgentPublicKey,
            authSecret: authSecret,
            payload: webPayload(push),
            timeToLive: webTimeToLive,
            urgency: urgency,
            topic: push.kind == .badge ? webBadgeTopic : nil
        )
    }

    /// The plaintext of a Web Push message: a JSON object, keys in a fixed
    /// order, well under the 3,993 bytes a message holds (title and body
    /// are cut to 178 characters each when queued; escaped they stay under
    /// 2,200 bytes together).
    static func webPayload(_ push: ClaimedPush) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        writeFields(push, display: true, to: &json)
        return json.bytes
    }

    /// The `tidings` object: the kind, the watch and change ids and the
    /// sync cursor; with `display` also the badge and an alert's title and
    /// body (a web payload, which has no `aps` to carry them).
    private static func writeFields(_ push: ClaimedPush, display: Bool, to json: inout JSONWriter) {
        json.beginObject()
        json.key("kind")
        json.value(push.kind.rawValue)
        if display, let badge = push.badge {
            json.key("badge")
            json.value(badge)
        }
        if let watchID = push.watchID {
            json.key("watch_id")
            json.value(watchID)
        }
        if let changeID = push.changeID {
            json.key("change_id")
            json.value(changeID)
        }
        if let cursor = push.cursor {
            json.key("cursor")
            json.value(cursor.token)
        }
        if display, push.kind == .alert {
            json.key("title")
            json.value(push.title ?? "")
            json.key("body")
            json.value(push.body ?? "")
        }
        json.endObject()
    }
}
