package import FoundationEssentials

/// Why a read was refused.
package enum ChangeStoreError: Error, Equatable {
    /// `up_to_change_id` names no change of this watch.
    case unknownChange(UUID)
}
