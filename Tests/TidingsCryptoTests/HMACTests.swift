import Testing
import TidingsCrypto

@Suite struct HMACTests {
    // RFC 4231 test cases 1, 2, 3, 6 and 7 (HMAC-SHA-256).
    @Test func rfc4231Vectors() throws {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            (
                [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array(
                    "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                        .utf8),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ]
        for testCase in cases {
            #expect(HMACSHA256.authenticationCode(for: testCase.data, key: testCase.key).hex == testCase.mac)
        }
    }

    @Test func emptyKeyAndMessage() {
        #expect(
            HMACSHA256.authenticationCode(for: [UInt8](), key: [UInt8]()).hex
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.isEqual([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.isEqual([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.isEqual([1, 2, 3], [1, 2]))
    }

    @Test func standardWebhooksVector() throws {
        let secret = try #require(WebhookSecret(encoded: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = secret.signature(
            messageID: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: 1_614_265_330,
            body: Array(#"{"test": 2432232314}"#.utf8)
        )
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func webhookSecretRoundTripsAndRejectsGarbage() throws {
        let secret = WebhookSecret.generate()
        #expect(secret.key.count == 32)
        #expect(secret.encoded.hasPrefix("whsec_"))
        #expect(WebhookSecret(encoded: secret.encoded) == secret)
        #expect(WebhookSecret(encoded: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == nil)
        #expect(WebhookSecret(encoded: "whsec_!!!") == nil)
    }
}
