import Testing
import TidingsHTTPClient
import TidingsPush

@Suite struct PushTransportConfigurationTests {
    @Test func baseURLsDefaultByEnvironmentAndCanBeOverridden() {
        var configuration = PushTransportConfiguration()
        #expect(configuration.apnsBaseURL(for: .production) == "https://api.push.apple.com")
        #expect(configuration.apnsBaseURL(for: .sandbox) == "https://api.sandbox.push.apple.com")
        #expect(configuration.fcmBase == "https://fcm.googleapis.com")

        configuration.apnsBaseURL = "https://gateway.internal:8443/apns/"
        configuration.fcmBaseURL = "https://gateway.internal:8443/fcm//"
        #expect(configuration.apnsBaseURL(for: .production) == "https://gateway.internal:8443/apns")
        #expect(configuration.apnsBaseURL(for: .sandbox) == "https://gateway.internal:8443/apns")
        #expect(configuration.fcmBase == "https://gateway.internal:8443/fcm")
    }

    @Test func onlyHTTPSBaseURLsAreAccepted() {
        #expect(PushTransportConfiguration.baseURL("https://127.0.0.1:9443/") == "https://127.0.0.1:9443")
        #expect(PushTransportConfiguration.baseURL("HTTPS://api.push.apple.com") == "HTTPS://api.push.apple.com")
        for text in [
            "http://api.push.apple.com", "https://", "https://host/a?b", "https://host/#x", "https://u:p@host", "https://ho st",
            "ftp://host", "",
        ] {
            #expect(PushTransportConfiguration.baseURL(text) == nil, "\(text)")
        }
    }

    @Test func thePushClientMultiplexesOneVerifiedConnectionPerHost() {
        var configuration = PushTransportConfiguration()
        configuration.caFile = "/etc/tidings/push-ca.pem"
        configuration.maxConcurrentStreams = 500

        let http = configuration.httpClientConfiguration

        #expect(http.maxConnectionsPerHost == 1)
        #expect(http.http2Multiplexing == HTTP2Multiplexing(maxConcurrentStreams: 500))
        #expect(http.extraCAFile == "/etc/tidings/push-ca.pem")
        #expect(http.urlSource == .operatorConfiguration)
        #expect(!http.allowPrivateTargets)
        #expect(http.maxRedirects == 0)
        #expect(http.maxResponseSize == 16 * 1024)
        #expect(HTTPClientConfiguration().urlSource == .tenants)
        #expect(HTTPClientConfiguration().http2Multiplexing == nil)
    }
}
