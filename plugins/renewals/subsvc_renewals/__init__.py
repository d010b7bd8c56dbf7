"""Plugin ``renewals``: renewing, autopay, daily tariffs, tariff switches and expiry."""
