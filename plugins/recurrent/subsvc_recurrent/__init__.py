"""Plugin ``recurrent``: a payment provider's recurring charges renewing a subscription."""
