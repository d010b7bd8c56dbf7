"""Plugin `menus`: what it contributes to subsvc."""

from subsvc.manifest import Plugin
from subsvc_menus.cabinet import CabinetMenuError
from subsvc_menus.jobs import JOBS
from subsvc_menus.layout import LayoutError
from subsvc_menus.main_menu import MenuRuleError, NotFound
from subsvc_menus.models import MODELS
from subsvc_menus.routes import admin, layout, layout_buttons, main_menu, stats
from subsvc_menus.routes.common import UPDATED, MenuUpdated
from subsvc_menus.settings import MenusSettings

plugin = Plugin(
    models=MODELS,
    endpoints=[
        main_menu.router,
        layout.router,
        layout_buttons.router,
        stats.router,
        admin.styles_router,
        admin.layout_router,
    ],
    permissions={"settings": ["read", "edit"]},
    tags={
        "main-menu": "The main menu's extra buttons (links, Mini Apps) and messages.",
        "menu-layout": "The bot's menu layout constructor: rows, buttons, "
        "visibility rules, history, click statistics.",
        "Admin Menu Layout": "The cabinet's menu rows (builtin sections, custom links).",
        "Admin Button Styles": "The style, emoji and labels of each cabinet section's button.",
    },
    settings=MenusSettings,
    events={UPDATED: MenuUpdated},
    jobs=JOBS,
    errors={
        LayoutError: LayoutError.answer,
        NotFound: 404,
        MenuRuleError: 400,
        CabinetMenuError: 400,
    },
)
