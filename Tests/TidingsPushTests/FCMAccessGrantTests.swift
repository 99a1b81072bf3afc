import Testing
import TidingsPush

/// The token endpoint's answer, read as hostile.
@Suite struct FCMAccessGrantTests {
    private func read(_ body: String, status: Int = 200, truncated: Bool = false) -> Result<FCMAccessGrant, PushCredentialError> {
        FCMAccessGrant.read(status: status, body: Array(body.utf8), truncated: truncated)
    }

    @Test func googlesAnswerIsRead() {
        let answer = #"{"access_token":"ya29.c.b0Aaek","expires_in":3599,"token_type":"Bearer","id_token":"ignored"}"#
        #expect(read(answer) == .success(FCMAccessGrant(accessToken: "ya29.c.b0Aaek", lifetime: .seconds(3599))))
        #expect(read(#"{"access_token":"x","token_type":"bearer"}"#) == .success(FCMAccessGrant(accessToken: "x", lifetime: .seconds(600))))
    }

    @Test(arguments: [
        ("1e30", Duration.seconds(3600)),
        ("99999999999999999999999999", .seconds(3600)),
        ("-5", .zero),
        ("0", .zero),
        ("59.5", .milliseconds(59_500)),
    ])
    func absurdLifetimesAreClamped(_ expiresIn: String, _ lifetime: Duration) {
        let result = read(#"{"access_token":"x","token_type":"Bearer","expires_in":\#(expiresIn)}"#)
        #expect(result == .success(FCMAccessGrant(accessToken: "x", lifetime: lifetime)))
    }

    @Test(arguments: [
        "",
        "not json",
        #"{"access_token":"x","token_type":"Bearer","expires_in":"#,
        #"["access_token","x"]"#,
        #"{"access_token":"x"}"#,
        #"{"access_token":1,"token_type":"Bearer"}"#,
        #"{"access_token":"x","token_type":"Bearer","expires_in":"3600"}"#,
        #"{"access_token":"x","token_type":"Bearer","expires_in":null,"#,
    ])
    func malformedAnswersAreTransientErrors(_ body: String) {
        #expect(
            read(body)
                == .failure(
                    PushCredentialError(
                        "the token endpoint's answer is not a JSON object with access_token and token_type", isTransient: true
                    )))
    }

    @Test func aCutBodyIsNotParsed() {
        #expect(throws: PushCredentialError.self) {
            try read(#"{"access_token":"x","token_type":"Bearer"}"#, truncated: true).get()
        }
    }

    @Test(arguments: ["", "with space", "line\nbreak", "caf\u{e9}", String(repeating: "a", count: 4097)])
    func tokensThatCannotBeAHeaderAreRefused(_ token: String) throws {
        var writer = [UInt8]()
        writer += Array(#"{"access_token":""#.utf8)
        writer += Array(token.utf8).flatMap { $0 == 0x0A ? Array("\\n".utf8) : [$0] }
        writer += Array(#"","token_type":"Bearer"}"#.utf8)
        let result = FCMAccessGrant.read(status: 200, body: writer, truncated: false)
        #expect(
            result
                == .failure(
                    PushCredentialError(
                        "the token endpoint granted an access token that is empty, longer than 4096 bytes or not plain ASCII",
                        isTransient: true
                    )))
    }

    @Test func otherTokenTypesAreRefused() {
        #expect(
            read(#"{"access_token":"x","token_type":"mac"}"#)
                == .failure(
                    PushCredentialError(
                        "the token endpoint granted a token that is not a Bearer token", isTransient: true
                    )))
    }

    @Test func refusalsNameTheOAuthErrorCodeOnly() {
        #expect(
            read(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#, status: 400)
                == .failure(PushCredentialError("the token endpoint refused the service account: invalid_grant (400)")))
        #expect(
            read(#"{"error":"secret value here"}"#, status: 401)
                == .failure(PushCredentialError("the token endpoint refused the service account: 401")))
        #expect(
            read("<html>busy</html>", status: 503)
                == .failure(PushCredentialError("the token endpoint answered 503", isTransient: true)))
        #expect(
            read(#"{"error":"rate_limited"}"#, status: 429)
                == .failure(PushCredentialError("the token endpoint answered rate_limited (429)", isTransient: true)))
        #expect(read("", status: 302) == .failure(PushCredentialError("the token endpoint refused the service account: 302")))
    }
}
