"""`POST /cabinet/auth/email/merge/verify` (release 4.1.0): linking an address another account
holds verified mails a code to it; the code proves inbox control and mints the merge token
that `POST /cabinet/auth/merge/{token}` consumes."""

from __future__ import annotations

from subsvc_cabinet_email.models import EmailToken

PASSWORD = "correct horse battery"
REGISTER = "/cabinet/auth/email/register"
MERGE_VERIFY = "/cabinet/auth/email/merge/verify"


async def test_the_mailed_code_offers_the_merge(anon_client, make_user, bearer, smtp_sink, fetch_user, rows):
    owner = await make_user(email="owner@example.com", email_verified=True, first_name="Olga", language="en")
    user = await make_user(messenger_id=700_001)
    headers = bearer(user)

    asked = await anon_client.post(
        REGISTER, json={"email": "Owner@Example.com", "password": PASSWORD}, headers=headers
    )
    assert asked.status_code == 200, asked.text
    assert asked.json() == {
        "message": "This email belongs to another account. A confirmation code was sent to it.",
        "email": "owner@example.com",
        "merge_required": True,
        "merge_verification": "email_code",
        "merge_token": None,
    }
    message = smtp_sink.last()
    assert message["To"] == "owner@example.com"
    assert message["Subject"].startswith("Your code to merge accounts")
    assert "Hello Olga" in smtp_sink.text(message)
    code = smtp_sink.code()
    (pending,) = await rows(EmailToken)
    assert pending.user_id == user.id and code not in pending.token_hash

    wrong = "000000" if code != "000000" else "111111"
    refused = await anon_client.post(MERGE_VERIFY, json={"code": wrong}, headers=headers)
    assert (refused.status_code, refused.json()) == (400, {"detail": "Invalid verification code"})
    other = bearer(await make_user(messenger_id=700_002))
    nobody = await anon_client.post(MERGE_VERIFY, json={"code": code}, headers=other)
    assert (nobody.status_code, nobody.json()) == (400, {"detail": "No pending email merge"})

    confirmed = await anon_client.post(MERGE_VERIFY, json={"code": code}, headers=headers)
    assert confirmed.status_code == 200, confirmed.text
    body = confirmed.json()
    assert body["success"] is True and body["merge_required"] is True
    assert body["expires_in_seconds"] == 1800
    token = body["merge_token"]

    again = await anon_client.post(MERGE_VERIFY, json={"code": code}, headers=headers)
    assert again.status_code == 400  # the code works once

    preview = await anon_client.get(f"/cabinet/auth/merge/{token}")
    assert preview.status_code == 200, preview.text
    assert (preview.json()["primary"]["id"], preview.json()["secondary"]["id"]) == (user.id, owner.id)
    merged = await anon_client.post(f"/cabinet/auth/merge/{token}", json={"keep_subscription_from": user.id})
    assert merged.status_code == 200, merged.text
    assert merged.json()["user"]["id"] == user.id
    assert (await fetch_user(owner.id)).status == "deleted"
    kept = await fetch_user(user.id)
    assert kept.email == "owner@example.com" and kept.email_verified


async def test_wrong_codes_drop_the_pending_merge(anon_client, make_user, bearer, smtp_sink, rows):
    await make_user(email="owner@example.com", email_verified=True)
    headers = bearer(await make_user(messenger_id=700_003))
    await anon_client.post(
        REGISTER, json={"email": "owner@example.com", "password": PASSWORD}, headers=headers
    )
    wrong = "000000" if smtp_sink.code() != "000000" else "111111"
    answers = [
        (await anon_client.post(MERGE_VERIFY, json={"code": wrong}, headers=headers)).status_code
        for _ in range(5)
    ]
    assert answers == [400, 400, 400, 400, 429]
    assert await rows(EmailToken) == []
    bad = await anon_client.post(MERGE_VERIFY, json={"code": "12345"}, headers=headers)
    assert bad.status_code == 422
    anonymous = await anon_client.post(MERGE_VERIFY, json={"code": "123456"})
    assert anonymous.status_code == 401
