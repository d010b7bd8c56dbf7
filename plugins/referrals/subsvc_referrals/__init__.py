"""Plugin `referrals`: the referral programme."""
