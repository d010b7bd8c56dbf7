"""subsvc plugin `pay_cryptobot`: top-ups through CryptoBot (Crypto Pay API), fiat invoices in rubles."""
