/// Why a stream was not opened.
enum EventStreamRefusal: Error, Equatable {
    /// The user holds `maximum` streams in this process already.
    case userAtLimit(maximum: Int)
    /// The process holds `maximum` streams already.
    case processAtLimit(maximum: Int)
    /// The service is stopping.
    case stopping
}
