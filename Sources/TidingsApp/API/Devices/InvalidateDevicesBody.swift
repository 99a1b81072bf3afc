import TidingsHTTPServer

/// `POST /v1/devices/invalidations` body: tokens a push gateway reported dead.
struct InvalidateDevicesBody: Decodable {
    static let maximumTokens = 1000

    let pushTokens: [String]

    enum CodingKeys: String, CodingKey {
        case pushTokens = "push_tokens"
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pushTokens = try container.decode([String].self, forKey: .pushTokens)
        guard (1...Self.maximumTokens).contains(pushTokens.count) else {
            throw container.fieldProblem(.pushTokens, "must list 1 to \(Self.maximumTokens) tokens")
        }
        for token in pushTokens {
            try TextField.validate(token, key: .pushTokens, in: container, maxLength: DeviceFieldRules.pushTokenMaxLength)
        }
    }
}
