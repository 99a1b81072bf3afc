/// A user's badge and the bounds of the user's order, read from the one
/// badge row in one snapshot.
package struct BadgeAndOrder: Sendable, Equatable {
    package let badge: Badge
    package let order: UserOrderBounds

    package init(badge: Badge, order: UserOrderBounds) {
        self.badge = badge
        self.order = order
    }
}
