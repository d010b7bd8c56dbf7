"""Plugin `pay_apple_iap`: Apple in-app purchases of consumable top-ups, verified with the
App Store Server API and credited to the balance once; Apple's refunds recorded."""
