from __future__ import annotations


async def test_mini_app_login_creates_user_and_me_works(anon_client, sign_init_data):
    response = await anon_client.post(
        "/cabinet/auth/messenger",
        json={"init_data": sign_init_data({"id": 4242, "first_name": "Ann", "username": "ann"})},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    me = await anon_client.get("/cabinet/auth/me", headers={"Authorization": f"Bearer {body['access_token']}"})
    assert me.status_code == 200, me.text
    assert me.json()["messenger_id"] == 4242
