"""Plugin `pay_overpay`: the client certificate Overpay requires (mTLS), uploaded by an
administrator, kept in the database and written to a file for use."""
