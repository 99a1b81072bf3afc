import TidingsCrypto

/// Web Push's hostile inputs (Crypto): a subscription's `p256dh` as bytes
/// and as base64url (`P256PublicKey`), a VAPID private key as base64url
/// (`P256KeyPair`), and an `aes128gcm` body (`WebPushEncryption.decrypt`,
/// for RFC 8291's example key and secret, so its body is a seed). The
/// first byte picks one; a fifth mode encrypts the rest and decrypts it.
/// No trap on any input; a key that is read prints and reads back as
/// itself; a private key's PKCS#8 PEM reads back with the same public key;
/// a decrypted body's plaintext fits in it; every round trip gives the
/// plaintext back.
enum WebPushCryptoTarget {
    static let browser = try! P256KeyPair(base64URLPrivateKey: "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
    static let authSecret = Base64.decode("BTBZMqHH6r4Tts7J_aSIgg")!

    static func run(_ input: FuzzInput) {
        let (selector, text) = input.selectorAndString
        let rest = Array(input.bytes.dropFirst())
        switch selector % 5 {
        case 0:
            do throws(P256KeyError) {
                let key = try P256PublicKey(bytes: rest)
                check(rest.count == 65 && rest[0] == 0x04 && key.bytes == rest, "read \(rest.count) bytes as a key")
                check((try? P256PublicKey(base64URL: key.base64URL)) == key, "base64url of a key does not read back")
            } catch {
                switch error {
                case .wrongLength(let expected, let actual): check(expected == 65 && actual == rest.count && actual != 65, "\(error)")
                case .notUncompressedPoint: check(rest.count == 65 && rest[0] != 0x04, "\(error)")
                case .notOnCurve: check(rest.count == 65 && rest[0] == 0x04, "\(error)")
                default: check(false, "unexpected \(error) for key bytes")
                }
            }
        case 1:
            if let key = try? P256PublicKey(base64URL: text) {
                check(key.bytes.count == 65 && key.bytes[0] == 0x04, "base64url key of \(key.bytes.count) bytes")
            }
        case 2:
            guard let key = try? P256KeyPair(base64URLPrivateKey: text) else { return }
            check(key.publicKeyBytes.count == 65 && key.publicKeyBytes[0] == 0x04, "public key of \(key.publicKeyBytes.count) bytes")
            let pem = try? key.pkcs8PEM()
            check(pem.flatMap { try? P256KeyPair(pem: $0) }?.publicKeyBytes == key.publicKeyBytes, "PKCS#8 PEM does not read back")
        case 3:
            guard let plaintext = try? WebPushEncryption.decrypt(body: rest, userAgentKey: browser, authSecret: authSecret) else { return }
            check(plaintext.count <= rest.count - WebPushEncryption.headerByteCount - 17, "plaintext longer than its record")
        default:
            let plaintext = Array(rest.prefix(WebPushEncryption.maximumPlaintextByteCount))
            do {
                let body = try WebPushEncryption.encrypt(plaintext: plaintext, userAgentPublicKey: browser.publicKeyBytes, authSecret: authSecret)
                check(body.count == WebPushEncryption.headerByteCount + plaintext.count + 17 && body.count <= 4096, "body of \(body.count) bytes")
                let decrypted = try WebPushEncryption.decrypt(body: body, userAgentKey: browser, authSecret: authSecret)
                check(decrypted == plaintext, "round trip changed the plaintext")
            } catch {
                check(false, "round trip failed: \(error)")
            }
        }
    }
}
