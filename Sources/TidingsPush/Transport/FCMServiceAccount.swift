import FoundationEssentials
import TidingsHTTPClient

/// The parts of a Google service account that FCM HTTP v1 needs: the
/// project messages are sent in, and the key and identity that obtain
/// access tokens from `tokenURI`. The private key is a secret: it is not
/// part of `description`, so printing or logging an account never shows it.
package struct FCMServiceAccount: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Google's token endpoint, the `token_uri` of every real service account.
    package static let googleTokenURI = "https://oauth2.googleapis.com/token"
    /// Service-account files are about 2.3 KiB; anything far larger is not one.
    package static let maximumJSONSize = 64 * 1024

    package let projectID: String
    package let clientEmail: String
    package let privateKey: String
    package let tokenURI: String

    /// Checks each field: a project id of letters, digits and `-._:`, an
    /// e-mail-like client, a non-empty key (read when used), an https
    /// token URI.
    package init(projectID: String, clientEmail: String, privateKey: String, tokenURI: String) throws(PushCredentialError) {
        guard (1...128).contains(projectID.utf8.count), projectID.utf8.allSatisfy(Self.isProjectIDByte) else {
            throw PushCredentialError("the service account's project_id must be 1 to 128 letters, digits, '-', '.', '_' or ':'")
        }
        guard (3...320).contains(clientEmail.utf8.count), clientEmail.contains("@"),
            clientEmail.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { throw PushCredentialError("the service account's client_email is not an e-mail address") }
        guard !privateKey.isEmpty else { throw PushCredentialError("the service account's private_key is empty") }
        guard PushTransportConfiguration.baseURL(tokenURI) != nil else {
            throw PushCredentialError("the service account's token_uri must be an https URL without query or fragment")
        }
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKey = privateKey
        self.tokenURI = tokenURI
    }

    /// Reads Google's service-account JSON (the file a Firebase project
    /// downloads): `project_id`, `client_email`, `private_key` and
    /// `token_uri` are required strings, `type` must be `service_account`
    /// when present; other members are ignored.
    package init(json: [UInt8]) throws(PushCredentialError) {
        struct File: Decodable {
            var type: String?
            var project_id: String
            var client_email: String
            var private_key: String
            var token_uri: String
        }
        guard json.count <= Self.maximumJSONSize else {
            throw PushCredentialError("the service account JSON must be at most \(Self.maximumJSONSize) bytes")
        }
        guard let file = PushAnswerBody.decode(File.self, from: json, truncated: false) else {
            throw PushCredentialError(
                "the service account is not a JSON object with string members project_id, client_email, private_key and token_uri")
        }
        guard file.type == nil || file.type == "service_account" else {
            throw PushCredentialError("the service account's type must be service_account")
        }
        try self.init(projectID: file.project_id, clientEmail: file.client_email, privateKey: file.private_key, tokenURI: file.token_uri)
    }

    package var description: String {
        "service account \(clientEmail) of project \(projectID)"
    }

    /// `dump` and debuggers see the same fields, the key redacted.
    package var customMirror: Mirror {
        Mirror(self, children: ["projectID": projectID, "clientEmail": clientEmail, "privateKey": "<redacted>", "tokenURI": tokenURI])
    }

    private static func isProjectIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"):
            true
        default:
            false
        }
    }
}
