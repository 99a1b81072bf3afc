import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a response delivers as it arrives: its head once, then its body in
/// chunks as the network hands them over.
enum ResponsePart: Sendable {
    case head(HTTPURLResponse)
    case body(Data)
}
