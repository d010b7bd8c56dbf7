"""The partner programme and withdrawals of referral earnings."""
