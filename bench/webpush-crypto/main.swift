// What the crypto of one Web Push message costs (bench/webpush-crypto.sh).
// Each figure is the mean over `iterations` calls on one thread, after a
// warm-up, in microseconds of the thread's CPU time (the machine is
// shared, so wall time would count other processes' turns too):
//   encrypt   WebPushEncryption.encrypt as a push sends: a fresh ephemeral
//             key, the p256dh read and checked, ECDH, HKDF, AES-128-GCM
//   keygen    P256KeyPair.generate alone
//   p256dh    P256PublicKey(bytes:) alone (the on-curve check)
//   ecdh      P256KeyPair.sharedSecret alone
//   vapid     VAPIDClaims, the claims written with JSONWriter, and
//             VAPID.authorization (an ES256 signature)
// Usage: TidingsCryptoBench [iterations]
import Glibc
import TidingsCrypto
import TidingsJSON

let iterations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2000 : 2000

func threadCPUNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// Runs `body` a tenth of `iterations` to warm up, then `iterations`
/// times; prints the mean CPU microseconds per call.
func measure(_ name: String, _ body: () throws -> Void) rethrows {
    for _ in 0..<max(1, iterations / 10) { try body() }
    let start = threadCPUNanoseconds()
    for _ in 0..<iterations { try body() }
    let perCall = Double(threadCPUNanoseconds() - start) / Double(iterations) / 1000
    print(name, (perCall * 10).rounded() / 10)
}

let browser = try P256KeyPair.generate()
let browserPoint = browser.publicKeyBytes
let authSecret = SecureRandom.bytes(count: 16)
// A badge-and-title notification, about what Tidings sends.
let payload = Array(#"{"type":"watch.changed","watch":"0b7f3c4e-2d51-4a8e-9f63-1c2d3e4f5a6b","title":"Prices page changed","badge":12}"#.utf8)
let vapidKey = try P256KeyPair.generate()
let peer = try P256PublicKey(bytes: browserPoint)
var sink = 0

try measure("encrypt") {
    sink &+= try WebPushEncryption.encrypt(plaintext: payload, userAgentPublicKey: browserPoint, authSecret: authSecret).count
}
try measure("keygen") { sink &+= try P256KeyPair.generate().publicKeyBytes.count }
try measure("p256dh") { sink &+= try P256PublicKey(bytes: browserPoint).bytes.count }
try measure("ecdh") { sink &+= try vapidKey.sharedSecret(with: peer).count }
try measure("vapid") {
    let claims = try VAPIDClaims(audience: "https://fcm.googleapis.com", subject: "mailto:ops@example.com",
                                 expiresAt: 1_750_043_200, now: 1_750_000_000)
    var writer = JSONWriter(capacity: 128)
    writer.beginObject()
    writer.key("aud")
    writer.value(claims.audience)
    writer.key("exp")
    writer.value(claims.expiresAt)
    writer.key("sub")
    writer.value(claims.subject)
    writer.endObject()
    sink &+= try VAPID.authorization(claimsJSON: writer.bytes, key: vapidKey).utf8.count
}
if sink == 42 { print("") }  // keeps the results used
