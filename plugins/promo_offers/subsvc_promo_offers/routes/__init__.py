"""The plugin's endpoints: Web API (`web`), Cabinet Admin (`admin`), cabinet (`cabinet`)."""
