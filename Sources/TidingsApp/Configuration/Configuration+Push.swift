import TidingsDispatcher
import TidingsPush

extension Configuration {
    /// The push dispatcher's settings. The endpoints are the operator's, so
    /// the tenant SSRF guard does not apply to them.
    var pushDispatcherConfiguration: PushDispatcherConfiguration {
        var push = PushDispatcherConfiguration()
        push.transport.apnsBaseURL = apnsURL
        if let fcmURL { push.transport.fcmBaseURL = fcmURL }
        push.transport.caFile = pushCAFile
        push.transport.timeout = pushTimeout
        push.transport.connectTimeout = min(outboundConnectTimeout, pushTimeout)
        push.transport.userAgent = "Tidings/\(TidingsCommand.version) (push)"
        push.transport.webPushAllowsPrivateTargets = allowPrivateTargets
        push.retrySchedule = pushRetrySchedule
        push.maxInFlight = pushMaxInFlight
        push.logRetention = max(eventRetention, pushSyncBudget.period)
        push.shutdownGracePeriod = min(shutdownTimeout, .seconds(5))
        return push
    }
}
