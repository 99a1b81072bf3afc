import TidingsDispatcher

extension Configuration {
    /// The webhook dispatcher's settings. Outbound limits shared with the
    /// poller (connect timeout, private targets) come from the general
    /// outbound variables.
    var dispatcherConfiguration: DispatcherConfiguration {
        var dispatcher = DispatcherConfiguration()
        dispatcher.timeout = webhookTimeout
        dispatcher.retrySchedule = webhookRetrySchedule
        dispatcher.disableAfter = webhookDisableAfter
        dispatcher.perWebhookConcurrency = webhookConcurrency
        dispatcher.perHostConcurrency = webhookHostConcurrency
        dispatcher.maxInFlight = webhookMaxInFlight
        dispatcher.perUserConcurrency = userWebhookConcurrency
        dispatcher.eventRetention = eventRetention
        dispatcher.allowPrivateTargets = allowPrivateTargets
        dispatcher.connectTimeout = outboundConnectTimeout
        dispatcher.shutdownGracePeriod = min(shutdownTimeout, .seconds(5))
        dispatcher.userAgent = "Tidings/\(TidingsCommand.version) (webhooks)"
        return dispatcher
    }
}
