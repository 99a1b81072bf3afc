import Foundation
import Testing
import TidingsPush

@Suite struct FCMServiceAccountTests {
    private func json(_ members: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: members))
    }

    private let complete: [String: Any] = [
        "type": "service_account", "project_id": "my-app-1234", "private_key_id": "abc",
        "private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
        "client_email": "fcm@my-app-1234.iam.gserviceaccount.com", "client_id": "1",
        "token_uri": "https://oauth2.googleapis.com/token", "universe_domain": "googleapis.com",
    ]

    @Test func googlesFileIsRead() throws {
        let account = try FCMServiceAccount(json: try json(complete))

        #expect(account.projectID == "my-app-1234")
        #expect(account.clientEmail == "fcm@my-app-1234.iam.gserviceaccount.com")
        #expect(account.tokenURI == FCMServiceAccount.googleTokenURI)
        #expect(account.privateKey.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func theKeyIsNeverPrinted() throws {
        let account = try FCMServiceAccount(json: try json(complete))
        var dumped = ""
        dump(account, to: &dumped)

        for text in [String(describing: account), String(reflecting: account), "\(account)", dumped] {
            #expect(!text.contains("PRIVATE KEY") && !text.contains("MIIE"))
        }
        #expect("\(account)" == "service account fcm@my-app-1234.iam.gserviceaccount.com of project my-app-1234")
    }

    @Test(arguments: ["project_id", "client_email", "private_key", "token_uri"])
    func requiredMembersMustBeStrings(_ member: String) throws {
        var missing = complete
        missing.removeValue(forKey: member)
        var number = complete
        number[member] = 42
        for members in [missing, number] {
            #expect(
                throws: PushCredentialError(
                    "the service account is not a JSON object with string members project_id, client_email, private_key and token_uri"
                )
            ) { try FCMServiceAccount(json: try json(members)) }
        }
    }

    @Test func fieldsAreChecked() throws {
        var wrongType = complete
        wrongType["type"] = "authorized_user"
        #expect(throws: PushCredentialError("the service account's type must be service_account")) {
            try FCMServiceAccount(json: try json(wrongType))
        }
        for uri in [
            "http://oauth2.googleapis.com/token", "https://oauth2.googleapis.com/token?x=1", "file:///etc/passwd",
            "https://user@host/token",
        ] {
            var account = complete
            account["token_uri"] = uri
            #expect(throws: PushCredentialError("the service account's token_uri must be an https URL without query or fragment")) {
                try FCMServiceAccount(json: try json(account))
            }
        }
        for project in ["", "a/b", "../x", String(repeating: "p", count: 129)] {
            var account = complete
            account["project_id"] = project
            #expect(throws: PushCredentialError.self) { try FCMServiceAccount(json: try json(account)) }
        }
        #expect(throws: PushCredentialError("the service account JSON must be at most 65536 bytes")) {
            try FCMServiceAccount(json: Array(repeating: UInt8(ascii: " "), count: 65537))
        }
        #expect(throws: PushCredentialError.self) { try FCMServiceAccount(json: Array("[]".utf8)) }
    }
}
