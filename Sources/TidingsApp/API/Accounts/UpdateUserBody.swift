import TidingsDomain
import TidingsHTTPServer

/// `PATCH /v1/users/{id}` body (admin): `{"limits": {"watches": 5000,
/// "devices": null}}`. A number is the user's own limit for that resource
/// (0 to 1,000,000; 0: no more of it), `null` puts it back to the
/// deployment's default, a resource left out keeps what it had.
struct UpdateUserBody: Decodable {
    /// Outer optional: left out; inner nil: back to the default.
    let limits: [UserResource: Int?]

    enum CodingKeys: String, CodingKey {
        case limits
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownFields(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.limits) else {
            limits = [:]
            return
        }
        if try container.decodeNil(forKey: .limits) {
            throw container.fieldProblem(.limits, "must be an object, not null")
        }
        limits = try container.decode(LimitsBody.self, forKey: .limits).changes
    }

    /// The `limits` object: keys are `UserResource` names.
    private struct LimitsBody: Decodable {
        let changes: [UserResource: Int?]

        private struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }

            init(_ resource: UserResource) {
                stringValue = resource.rawValue
            }

            init?(stringValue: String) {
                guard UserResource(rawValue: stringValue) != nil else { return nil }
                self.stringValue = stringValue
            }

            init?(intValue: Int) {
                nil
            }
        }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownFields(Key.self)
            let container = try decoder.container(keyedBy: Key.self)
            var changes: [UserResource: Int?] = [:]
            for resource in UserResource.allCases {
                let key = Key(resource)
                guard container.contains(key) else { continue }
                if try container.decodeNil(forKey: key) {
                    changes[resource] = .some(nil)
                    continue
                }
                // A string, a fraction, 1e30 or -1 all get the same answer,
                // naming the field: decoding fails for the first three
                // before a range could be checked.
                guard let value = try? container.decode(Int.self, forKey: key), UserLimits.range.contains(value) else {
                    throw container.fieldProblem(
                        key,
                        "must be a whole number from \(UserLimits.range.lowerBound) to \(UserLimits.range.upperBound), or null for the default"
                    )
                }
                changes[resource] = .some(value)
            }
            self.changes = changes
        }
    }
}
