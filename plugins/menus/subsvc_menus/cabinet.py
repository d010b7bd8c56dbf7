"""The cabinet's menu: the button style of each builtin section, and the rows of buttons
(builtin sections and custom links). Two documents; the merged view joins them and a save
splits them again, both in one transaction."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from subsvc.api import from_attributes
from subsvc_menus import catalogue, documents
from subsvc_menus.schemas.cabinet import (
    ButtonConfig,
    ButtonSectionConfig,
    ButtonStylesResponse,
    ButtonStylesUpdate,
    MenuConfigResponse,
    RowConfig,
)

MAX_ROWS = 20
MAX_BUTTONS_PER_ROW = 8  # the messenger's inline keyboard limit
MAX_LABEL_LENGTH = 100
LINK_PREFIXES = ("http://", "https://", "tg://")
STYLED = tuple(catalogue.STYLE_DEFAULTS)
Styles = dict[str, ButtonSectionConfig]


class CabinetMenuError(ValueError):
    """A refused configuration (answered 400)."""


def default_styles() -> Styles:
    return {section: ButtonSectionConfig(style=style) for section, style in catalogue.STYLE_DEFAULTS.items()}


def load_styles(data: dict[str, Any] | None, locales: list[str]) -> Styles:
    """The defaults with the stored values that are still valid laid over them."""
    styles = default_styles()
    for section, stored in (data or {}).items():
        if section not in styles or not isinstance(stored, dict):
            continue
        current = styles[section]
        if stored.get("style") in catalogue.STYLES:
            current.style = stored["style"]
        if isinstance(stored.get("icon_custom_emoji_id"), str):
            current.icon_custom_emoji_id = stored["icon_custom_emoji_id"]
        if isinstance(stored.get("enabled"), bool):
            current.enabled = stored["enabled"]
        if isinstance(stored.get("labels"), dict):
            current.labels = {
                k: v for k, v in stored["labels"].items() if k in locales and isinstance(v, str)
            }
    return styles


def styles_response(styles: Styles) -> ButtonStylesResponse:
    return ButtonStylesResponse(**styles)


def dump_styles(styles: Styles) -> dict[str, Any]:
    return {section: config.model_dump() for section, config in styles.items()}


def _check_style(style: str, owner: str) -> None:
    if style not in catalogue.STYLES:
        raise CabinetMenuError(
            f'Invalid style "{style}" for {owner}. Allowed: {", ".join(catalogue.STYLES)}.'
        )


def _clean_labels(labels: dict[str, str], owner: str, locales: list[str]) -> dict[str, str]:
    """Labels stripped, empty ones dropped; locales and lengths checked."""
    clean: dict[str, str] = {}
    for locale, label in labels.items():
        if locale not in locales:
            raise CabinetMenuError(f'Invalid locale "{locale}" for {owner}. Allowed: {", ".join(locales)}.')
        text = label.strip()
        if len(text) > MAX_LABEL_LENGTH:
            raise CabinetMenuError(
                f'Label for locale "{locale}" on {owner} exceeds {MAX_LABEL_LENGTH} characters.'
            )
        if text:
            clean[locale] = text
    return clean


def apply_styles(styles: Styles, update: ButtonStylesUpdate, locales: list[str]) -> list[str]:
    """Lay a partial update over the styles; answers the sections changed."""
    changed = []
    for section in STYLED:
        change = getattr(update, section)
        if change is None:
            continue
        current = styles[section]
        owner = f'section "{section}"'
        if change.style is not None:
            _check_style(change.style, owner)
            current.style = change.style
        if change.icon_custom_emoji_id is not None:
            current.icon_custom_emoji_id = change.icon_custom_emoji_id.strip()
        if change.enabled is not None:
            current.enabled = change.enabled
        if change.labels is not None:
            current.labels = _clean_labels(change.labels, owner, locales)
        changed.append(section)
    return changed


# --- the layout ----------------------------------------------------------------------------


def default_layout() -> dict[str, Any]:
    rows = [
        {"id": f"row_{n}", "max_per_row": per_line, "buttons": ids}
        for n, (ids, per_line) in enumerate(catalogue.CABINET_ROWS, start=1)
    ]
    return {"rows": rows, "buttons": {}}


def merged(layout: dict[str, Any] | None, styles: Styles) -> MenuConfigResponse:
    """The rows with every button's full configuration: a styled section's from the styles,
    the others' from the layout."""
    layout = layout or default_layout()
    own: dict[str, Any] = layout.get("buttons", {})
    rows = []
    for row in layout.get("rows", []):
        buttons = []
        for key in row["buttons"]:
            if key in styles:
                buttons.append(from_attributes(ButtonConfig, styles[key], id=key, type="builtin"))
            elif key in own:
                buttons.append(ButtonConfig.model_validate(own[key]))
            elif key in catalogue.CABINET_SECTIONS:
                buttons.append(ButtonConfig(id=key, type="builtin"))
        rows.append(RowConfig(id=row["id"], max_per_row=row["max_per_row"], buttons=buttons))
    return MenuConfigResponse(rows=rows)


def _check_button(button: ButtonConfig, locales: list[str]) -> None:
    if button.type == "builtin" and button.id not in catalogue.CABINET_SECTIONS:
        raise CabinetMenuError(f'Unknown built-in section: "{button.id}".')
    if button.type == "custom":
        if not button.id.startswith("custom_"):
            raise CabinetMenuError(f'Custom button id must start with "custom_": "{button.id}".')
        if not button.url or not button.url.startswith(LINK_PREFIXES):
            raise CabinetMenuError(
                f'Custom button "{button.id}" must have a URL starting with http://, https://, or tg://.'
            )
        if button.open_in == "webapp" and not button.url.startswith("https://"):
            raise CabinetMenuError(f'Custom button "{button.id}" with webapp mode requires an https:// URL.')
    _check_style(button.style, f'button "{button.id}"')
    button.labels = _clean_labels(button.labels, f'button "{button.id}"', locales)


def check_rows(rows: list[RowConfig], locales: list[str]) -> None:
    """Refuse (400) a configuration the cabinet cannot show, naming the first problem."""
    if len(rows) > MAX_ROWS:
        raise CabinetMenuError(f"Too many rows: {len(rows)}. Maximum allowed: {MAX_ROWS}.")
    row_ids: set[str] = set()
    button_ids: set[str] = set()
    for row in rows:
        if row.id in row_ids:
            raise CabinetMenuError(f'Duplicate row ID: "{row.id}".')
        row_ids.add(row.id)
        if len(row.buttons) > MAX_BUTTONS_PER_ROW:
            raise CabinetMenuError(
                f'Row "{row.id}" has {len(row.buttons)} buttons. Maximum per row: {MAX_BUTTONS_PER_ROW}.'
            )
        for button in row.buttons:
            if button.id in button_ids:
                raise CabinetMenuError(
                    f'Duplicate button ID: "{button.id}". Each button can only appear once.'
                )
            button_ids.add(button.id)
            _check_button(button, locales)


def split(rows: list[RowConfig], styles: Styles) -> dict[str, Any]:
    """The layout document of ``rows``; styled sections' settings go into ``styles``."""
    own: dict[str, Any] = {}
    for row in rows:
        for button in row.buttons:
            if button.type == "builtin" and button.id in styles:
                styles[button.id] = ButtonSectionConfig.model_validate(button, from_attributes=True)
            else:
                own[button.id] = button.model_dump()
    layout_rows = [
        {"id": r.id, "max_per_row": r.max_per_row, "buttons": [b.id for b in r.buttons]} for r in rows
    ]
    return {"rows": layout_rows, "buttons": own}


async def read_styles(session: AsyncSession, locales: list[str]) -> Styles:
    return load_styles((await documents.read(session, documents.BUTTON_STYLES)).data, locales)


async def take_styles(session: AsyncSession, locales: list[str]) -> Styles:
    return load_styles((await documents.take(session, documents.BUTTON_STYLES)).data, locales)
